package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Node-agents mode ({@link NodeAgentsModel}): the {@code nvidia-node-agents} DaemonSet compared
 * with {@code src/test/resources/golden/node-agents/<case>.yaml} (regenerate with {@code
 * -Dgolden.update=true}, as {@link GoldenTest}), and the rules it must keep.
 */
class NodeAgentsModelTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");
  private static final boolean UPDATE = Boolean.getBoolean("golden.update");

  static final ClusterFacts FACTS =
      new ClusterFacts("v1.36.3", "containerd", true, 2, true, "ubuntu22.04")
          .withResourceApi(ResourceApiVersion.V1);

  static OperatorConfig config(boolean nodeAgents) {
    return OperatorConfig.fromEnv(Map.of("NODE_AGENTS", String.valueOf(nodeAgents)))
        .withAgents(Policies.agents());
  }

  static ClusterPolicy policy(String goldenCase) throws IOException {
    return Policies.parse(Files.readString(GOLDEN.resolve("cases/" + goldenCase + ".yaml")));
  }

  static List<RenderedOperand> render(ClusterPolicy policy, boolean nodeAgents) {
    return Operands.renderAll(policy, FACTS, config(nodeAgents));
  }

  static RenderedOperand operand(List<RenderedOperand> all, String name) {
    return all.stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
  }

  static DaemonSet nodeAgents(List<RenderedOperand> all) {
    List<HasMetadata> objects = operand(all, OperandNames.NODE_AGENTS).objects();
    // Its ServiceAccount, then the DaemonSet.
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactly("ServiceAccount", "DaemonSet");
    assertThat(objects.get(0).getMetadata().getName()).isEqualTo("nvidia-node-agents");
    return (DaemonSet) objects.get(1);
  }

  /**
   * The node-agents DaemonSet, then which operands it hosts and which DaemonSets the others keep,
   * and the objects the mode changes besides (the exporter's Service, the DRA admission policy).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"minimal", "mig-mixed", "dra-driver"})
  void rendersAsGolden(String goldenCase) throws IOException {
    List<RenderedOperand> all = render(policy(goldenCase), true);
    StringBuilder out = new StringBuilder();
    for (RenderedOperand op : all) {
      out.append("# ").append(op.name()).append(": ");
      if (!op.enabled()) {
        out.append("disabled\n");
        continue;
      }
      out.append(op.hostedIn() != null ? "hosted in nvidia-node-agents" : "own objects");
      List<String> ds =
          op.objects().stream()
              .filter(DaemonSet.class::isInstance)
              .map(o -> o.getMetadata().getName())
              .toList();
      out.append(ds.isEmpty() ? "" : ", DaemonSets " + ds).append('\n');
    }
    for (RenderedOperand op : all) {
      for (HasMetadata o : op.objects()) {
        boolean changed =
            op.name().equals(OperandNames.NODE_AGENTS)
                || (op.hostedIn() != null
                    && (o instanceof Service || o instanceof ValidatingAdmissionPolicy));
        if (changed) {
          String yaml = Serialization.asYaml(o);
          out.append(yaml.startsWith("---") ? yaml : "---\n" + yaml);
        }
      }
    }
    Path file = GOLDEN.resolve("node-agents").resolve(goldenCase + ".yaml");
    if (UPDATE) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, out.toString(), StandardCharsets.UTF_8);
    }
    assertThat(file).as("golden file (regenerate with -Dgolden.update=true)").exists();
    assertThat(out.toString()).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
  }

  @Test
  void offByDefaultAndThenEveryOperandKeepsItsOwnDaemonSet() throws IOException {
    assertThat(OperatorConfig.fromEnv(Map.of()).nodeAgents()).isFalse();
    List<RenderedOperand> all = render(policy("minimal"), false);
    RenderedOperand na = operand(all, OperandNames.NODE_AGENTS);
    assertThat(na.enabled()).isFalse(); // so a node-agents DaemonSet left behind is deleted
    assertThat(na.objects()).isEmpty();
    assertThat(all).allMatch(o -> o.hostedIn() == null);
    // The same objects as without the mode's entry: the operands render exactly as before.
    List<RenderedOperand> on = render(policy("minimal"), true);
    assertThat(operand(all, "driver").objects()).isEqualTo(operand(on, "driver").objects());
    assertThat(operand(all, OperandNames.OPERATOR_VALIDATOR).objects())
        .isEqualTo(operand(on, OperandNames.OPERATOR_VALIDATOR).objects());
  }

  @Test
  void hostsOurLongRunningAgentsAndTakesTheirDaemonSetsAway() throws IOException {
    List<RenderedOperand> all = render(policy("minimal"), true);
    DaemonSet ds = nodeAgents(all);
    for (String hosted :
        List.of(
            OperandNames.DEVICE_PLUGIN,
            OperandNames.DCGM_EXPORTER,
            OperandNames.GPU_FEATURE_DISCOVERY,
            OperandNames.MIG_MANAGER)) {
      RenderedOperand op = operand(all, hosted);
      assertThat(op.hostedIn()).as(hosted).isSameAs(ds);
      assertThat(op.daemonSets()).as(hosted).containsExactly(ds);
    }
    // The validator's long-running part is a shell sleep, not an agent: it keeps its DaemonSet.
    assertThat(operand(all, OperandNames.OPERATOR_VALIDATOR).daemonSets())
        .extracting(d -> d.getMetadata().getName())
        .containsExactly("nvidia-operator-validator");
    Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getArgs())
        .startsWith("node-agents", "--run", "device-plugin")
        .contains(
            "--node-selector",
            "device-plugin=nvidia.com/gpu.deploy.device-plugin=true",
            "mig-manager=nvidia.com/gpu.deploy.mig-manager=true");
    assertThat(ds.getMetadata().getLabels())
        .containsEntry(ManagedObjects.OPERAND_LABEL, OperandNames.NODE_AGENTS);
    // Neither the device plugin nor the MIG manager is privileged: the one container gets the
    // capabilities they name.
    assertThat(c.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(c.getSecurityContext().getCapabilities().getAdd())
        .containsExactlyInAnyOrder("SYS_ADMIN", "SYS_CHROOT");
    assertThat(ds.getSpec().getTemplate().getSpec().getHostPID()).isTrue(); // the MIG manager's
    assertThat(c.getLivenessProbe()).isNull();
    // The validation wait, once.
    assertThat(ds.getSpec().getTemplate().getSpec().getInitContainers())
        .extracting(Container::getName)
        .containsExactly("toolkit-validation");
  }

  @Test
  void sharedVariablesStayAndTheOthersBelongToTheirAgent() throws IOException {
    DaemonSet ds = nodeAgents(render(policy("minimal"), true));
    List<EnvVar> env = ds.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
    // NODE_NAME is every agent's alike; the nvidia runtime reads NVIDIA_* from the container.
    assertThat(env)
        .extracting(EnvVar::getName)
        .contains("NODE_NAME", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES")
        .doesNotContain("EXPORTER__NVIDIA_VISIBLE_DEVICES");
    assertThat(env)
        .extracting(EnvVar::getName)
        .contains(
            "DEVICE_PLUGIN__PASS_DEVICE_SPECS",
            "DEVICE_PLUGIN__MIG_STRATEGY",
            "FEATURE_DISCOVERY__GFD_OUTPUT",
            "MIG_MANAGER__CONFIG_FILE",
            "EXPORTER__DCGM_EXPORTER_LISTEN")
        .doesNotContain("PASS_DEVICE_SPECS", "GFD_OUTPUT", "CONFIG_FILE");
    // A value from the downward API keeps its source under the prefix.
    assertThat(env)
        .filteredOn(e -> e.getName().equals("MIG_MANAGER__OPERATOR_NAMESPACE"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.namespace"));
  }

  @Test
  void featureDiscoveryWithNvidiasConfigManagerSidecarKeepsItsOwnDaemonSet() throws IOException {
    List<RenderedOperand> all = render(policy("mig-mixed"), true);
    RenderedOperand gfd = operand(all, OperandNames.GPU_FEATURE_DISCOVERY);
    assertThat(gfd.hostedIn()).isNull();
    assertThat(gfd.daemonSets())
        .extracting(d -> d.getMetadata().getName())
        .contains("gpu-feature-discovery");
    assertThat(operand(all, OperandNames.DEVICE_PLUGIN).hostedIn()).isNotNull();
  }

  @Test
  void theExportersServiceSelectsTheNodeAgentsPods() throws IOException {
    List<RenderedOperand> all = render(policy("minimal"), true);
    Optional<Service> svc =
        operand(all, OperandNames.DCGM_EXPORTER).objects().stream()
            .filter(Service.class::isInstance)
            .map(Service.class::cast)
            .findFirst();
    assertThat(svc).isPresent();
    assertThat(svc.get().getSpec().getSelector()).isEqualTo(Map.of("app", "nvidia-node-agents"));
    assertThat(nodeAgents(all).getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(svc.get().getSpec().getSelector());
  }

  @Test
  void theDraPluginKeepsItsExclusionFromDevicePluginNodesAndItsAdmissionPolicyCoversUs()
      throws IOException {
    List<RenderedOperand> all = render(policy("dra-driver"), true);
    DaemonSet ds = nodeAgents(all);
    assertThat(ds.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("dra-plugin=nvidia.com/gpu.deploy.dra-driver=true");
    ValidatingAdmissionPolicy vap =
        operand(all, OperandNames.DRA_DRIVER).objects().stream()
            .filter(ValidatingAdmissionPolicy.class::isInstance)
            .map(ValidatingAdmissionPolicy.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(vap.getSpec().getMatchConditions().get(0).getExpression())
        .contains(":nvidia-dra-driver-gpu'")
        .contains(":nvidia-node-agents'");
  }

  @Test
  void selectorsSayTheDaemonSetsNodeRequirements() {
    var pod =
        Serialization.unmarshal(
            """
            nodeSelector: {nvidia.com/gpu.deploy.dra-driver: "true"}
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                    - matchExpressions:
                        - {key: nvidia.com/gpu.deploy.device-plugin, operator: NotIn, values: ["true"]}
            containers: []
            """,
            io.fabric8.kubernetes.api.model.PodSpec.class);
    assertThat(NodeAgentsModel.selector(pod))
        .isEqualTo(
            "nvidia.com/gpu.deploy.dra-driver=true,nvidia.com/gpu.deploy.device-plugin!=true");
    pod.getAffinity()
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms()
        .get(0)
        .getMatchExpressions()
        .get(0)
        .setOperator("Exists");
    assertThat(NodeAgentsModel.selector(pod)).as("not expressible: stays separate").isNull();
  }
}

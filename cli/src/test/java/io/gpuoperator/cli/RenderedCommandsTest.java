package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operand;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.operand.Rendering;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.sim.kubelet.ContainerRunners;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * No rendered container calls a subcommand this binary does not have: the agents the operator
 * renders for our image come from the CLI's own command tree, which is parsed here.
 */
class RenderedCommandsTest {
  /** The subcommands of the real command line, as the operator sees them. */
  static final Set<String> SUBCOMMANDS =
      Set.copyOf(GpuOperatorCommand.commandLine().getSubcommands().keySet());

  static final String OURS = OperandImages.projectImage();

  /** Policies that together render every operand and every conditional container. */
  static final List<String> POLICIES =
      List.of(
          "spec: {}",
          """
          spec:
            mig: {strategy: mixed}
            hostPaths: {rootFS: /host, driverInstallDir: /opt/driver}
            devicePlugin: {config: {name: ts, default: a}}
            dcgm: {enabled: true}
            nodeStatusExporter: {enabled: true}
            driver: {rdma: {enabled: true}}
            gds: {enabled: true}
            gdrcopy: {enabled: true}
            cdi: {enabled: false}
          """,
          """
          spec:
            validator: {image: %1$s}
            devicePlugin: {image: %1$s}
            gfd: {image: %1$s}
          """
              .formatted(OURS),
          """
          spec:
            validator: {repository: nvcr.io/nvidia, image: gpu-operator, version: v26.7.0}
            devicePlugin: {repository: nvcr.io/nvidia, image: k8s-device-plugin, version: v0.20.0}
            gfd: {repository: nvcr.io/nvidia, image: k8s-device-plugin, version: v0.20.0}
            nodeStatusExporter: {enabled: true}
          """);

  static ClusterPolicy policy(String spec) {
    return Serialization.unmarshal(
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n" + spec,
        ClusterPolicy.class);
  }

  static OperatorConfig config() {
    return OperatorConfig.fromEnv(Map.of()).withAgents(SUBCOMMANDS);
  }

  @Test
  void everyAgentTheOperatorRendersIsASubcommandOfThisBinary() {
    for (Operand operand : Operands.ordered()) {
      if (operand.agent() != null) {
        assertThat(SUBCOMMANDS).as(operand.name()).contains(operand.agent().subcommand());
      }
    }
    // And the subcommands the docs promise as agents are really there.
    assertThat(SUBCOMMANDS).contains("validator", "device-plugin", "feature-discovery");
  }

  @Test
  void noRenderedContainerCallsASubcommandThisBinaryLacks() {
    int ours = 0;
    boolean pciDiscovery = false;
    // With NFD, and without (then our feature discovery brings the PCI discovery DaemonSet).
    List<ClusterFacts> clusters =
        List.of(
            ClusterFacts.offline(2, "ubuntu22.04"),
            new ClusterFacts("v1.36.3", "containerd", false, 0, false, null));
    for (String spec : POLICIES) {
      for (ClusterFacts facts : clusters) {
        for (RenderedOperand op : Operands.renderAll(policy(spec), facts, config())) {
          for (HasMetadata o : op.objects()) {
            if (!(o instanceof DaemonSet ds)) {
              continue;
            }
            var pod = ds.getSpec().getTemplate().getSpec();
            List<Container> all = new ArrayList<>(pod.getContainers());
            if (pod.getInitContainers() != null) {
              all.addAll(pod.getInitContainers());
            }
            for (Container c : all) {
              String where = ds.getMetadata().getName() + "/" + c.getName() + " of " + spec;
              List<String> line = ContainerRunners.commandLine(c);
              if (OperandImages.isProjectImage(c.getImage())) {
                ours++;
                pciDiscovery |= line.contains("pci-discovery");
                checkOurs(line, where);
              } else if (c.getCommand() == null || c.getCommand().isEmpty()) {
                // NVIDIA's image runs its own entrypoint: never with our subcommand as argument.
                assertThat(line).as(where).noneMatch(SUBCOMMANDS::contains);
              }
            }
          }
          if (op.rendering().kind() == Rendering.Kind.AGENT) {
            assertThat(SUBCOMMANDS).contains(op.rendering().agent());
          }
        }
      }
    }
    assertThat(ours).as("containers of our image checked").isGreaterThan(10);
    assertThat(pciDiscovery).as("the PCI discovery DaemonSet checked").isTrue();
  }

  /**
   * In node-agents mode every {@code --run} of the {@code nvidia-node-agents} DaemonSet is one of
   * this binary's agents with flags it accepts, and every {@code --node-selector} parses: the line
   * goes through the real command's own parser, which parses each {@code --run} as its subcommand.
   */
  @Test
  void everyNodeAgentsRunIsASubcommandWithFlagsItAccepts() {
    List<String> policies = new ArrayList<>(POLICIES);
    policies.add("spec:\n  devicePlugin: {enabled: false}\n  draDriver: {enabled: true}\n");
    policies.add("spec:\n  devicePlugin: {args: [--device-id-strategy=index]}\n");
    int lines = 0;
    Set<String> hosted = new java.util.TreeSet<>();
    for (String spec : policies) {
      ClusterFacts facts =
          ClusterFacts.offline(2, "ubuntu22.04")
              .withResourceApi(io.gpuoperator.api.dra.ResourceApiVersion.V1);
      for (RenderedOperand op :
          Operands.renderAll(policy(spec), facts, config().withNodeAgents(true))) {
        for (HasMetadata o : op.objects()) {
          if (!(o instanceof DaemonSet ds)
              || !ds.getMetadata().getName().equals("nvidia-node-agents")) {
            continue;
          }
          Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
          List<String> line = ContainerRunners.commandLine(c);
          assertThat(line.get(0)).isEqualTo("node-agents");
          var parsed = NodeAgentsCommand.parse(line.subList(1, line.size()));
          parsed.agents().forEach(a -> hosted.add(a[0]));
          assertThat(parsed.agents()).as(spec).isNotEmpty();
          lines++;
        }
      }
    }
    assertThat(lines).isEqualTo(policies.size());
    assertThat(hosted)
        .containsExactly(
            "device-plugin", "dra-plugin", "exporter", "feature-discovery", "mig-manager");
    // A flag an agent does not have is refused by the same parser, naming the --run.
    assertThatThrownBy(
            () -> NodeAgentsCommand.parse(List.of("--run", "device-plugin --no-such-flag")))
        .hasMessageContaining("--run 'device-plugin --no-such-flag'");
  }

  /**
   * Our image runs {@code gpu-operator <subcommand>} (the image's entrypoint, or named), or a shell
   * loop that waits for a marker file and calls no program of NVIDIA's images.
   */
  private static void checkOurs(List<String> line, String where) {
    assertThat(line).as(where).isNotEmpty();
    List<String> args = line;
    if (line.get(0).equals("gpu-operator") || line.get(0).endsWith("/gpu-operator")) {
      args = line.subList(1, line.size());
    }
    if (args.get(0).equals("sh") && args.size() == 3 && args.get(1).equals("-c")) {
      // Only the shell: wait loops and the validator's final sleep.
      assertThat(args.get(2))
          .as(where)
          .matches("(until \\[ -f /run/nvidia/validations/|echo ).*")
          .doesNotContain("nvidia-validator", "nvidia-toolkit", "nvidia-device-plugin", "exec ");
      return;
    }
    assertThat(SUBCOMMANDS).as(where + ": " + line).contains(args.get(0));
  }

  @Test
  void ourImageForAnOperandWithoutAnAgentIsRefusedNamingTheField() {
    for (String section : List.of("driver", "dcgm")) {
      ClusterPolicy p = policy("spec:\n  " + section + ": {image: " + OURS + "}\n");
      assertThatThrownBy(
              () -> Operands.renderAll(p, ClusterFacts.offline(1, "ubuntu22.04"), config()))
          .isInstanceOf(PolicyValidationException.class)
          .hasMessageContaining("spec." + section + ".image")
          .hasMessageContaining("this project has no")
          .hasMessageContaining("nvcr.io/nvidia/");
    }
  }

  @Test
  void defaultImagesAreOursExactlyWhereThisBinaryHasADefaultAgent() {
    Map<String, String> images = Operands.defaultImages(SUBCOMMANDS);
    assertThat(images.get("device-plugin")).isEqualTo(OURS);
    assertThat(images.get("gpu-feature-discovery")).isEqualTo(OURS);
    assertThat(images.get("operator-validator")).isEqualTo(OURS);
    assertThat(images.get("dcgm-exporter")).isEqualTo(OURS);
    assertThat(images.get("mig-manager")).isEqualTo(OURS);
    // The toolkit agent runs only where our image is named: NVIDIA's image installs the runtime
    // binaries (nvidia-container-runtime, nvidia-cdi-hook) that the nvidia runtime class needs.
    for (String nvidia : List.of("driver", "dcgm", "container-toolkit")) {
      assertThat(images.get(nvidia)).as(nvidia).startsWith("nvcr.io/nvidia/");
    }
    CommandRun version = CommandRun.of("version");
    assertThat(version.code()).isZero();
    assertThat(version.out())
        .contains("device-plugin          " + OURS)
        .contains("container-toolkit      nvcr.io/nvidia/k8s/container-toolkit:")
        .contains("driver                 nvcr.io/nvidia/");
  }
}

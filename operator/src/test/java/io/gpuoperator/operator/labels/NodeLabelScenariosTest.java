package io.gpuoperator.operator.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.MigManagerSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The scenarios table of the original's node labelling (operand-contracts 5.3), one test per row:
 * the labels a node carries after the operator's change, from the labels it had.
 */
class NodeLabelScenariosTest {
  private static final String PCI = "feature.node.kubernetes.io/pci-10de.present";
  private static final String DEPLOY = "nvidia.com/gpu.deploy.";
  private static final List<String> CONTAINER_KEYS =
      List.of(
          "driver",
          "gpu-feature-discovery",
          "container-toolkit",
          "device-plugin",
          "dcgm",
          "dcgm-exporter",
          "node-status-exporter",
          "operator-validator",
          "client");

  /** The chart's MIG manager section: enabled, default all-disabled. */
  private static ClusterPolicy chartPolicy() {
    ClusterPolicy p = Policies.minimal();
    p.getSpec().migManager = new MigManagerSpec();
    p.getSpec().migManager.config = new NamedRef("default-mig-parted-config");
    p.getSpec().migManager.config.defaultEntry = "all-disabled";
    return p;
  }

  private static ClusterPolicy sandbox(
      SandboxWorkloadsSpec.Workload def, SandboxWorkloadsSpec.Mode mode) {
    ClusterPolicy p = chartPolicy();
    p.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    p.getSpec().sandboxWorkloads.enabled = true;
    p.getSpec().sandboxWorkloads.defaultWorkload = def;
    p.getSpec().sandboxWorkloads.mode = mode;
    return p;
  }

  private static Node node(Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .withResourceVersion("1")
        .withLabels(new HashMap<>(labels))
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }

  /** The operator-written labels (nvidia.com/...) of the node after the change. */
  private static Map<String, String> after(Map<String, String> labels, ClusterPolicy policy) {
    Node n = node(labels);
    NodeLabelChange c = NodeLabelRules.change(n, policy);
    Map<String, String> out = new HashMap<>(labels);
    out.putAll(c.labelsToSet());
    c.labelsToRemove().forEach(out::remove);
    Map<String, String> nvidia = new TreeMap<>();
    out.forEach(
        (k, v) -> {
          if (k.startsWith("nvidia.com/")) {
            nvidia.put(k, v);
          }
        });
    return nvidia;
  }

  private static Map<String, String> gpuNode(String... more) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(PCI, "true");
    for (int i = 0; i < more.length; i += 2) {
      m.put(more[i], more[i + 1]);
    }
    return m;
  }

  private static Map<String, String> deploy(List<String> operands) {
    Map<String, String> m = new TreeMap<>();
    operands.forEach(o -> m.put(DEPLOY + o, "true"));
    return m;
  }

  private static Map<String, String> with(Map<String, String> base, String... kv) {
    Map<String, String> m = new TreeMap<>(base);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static Map<String, String> containerNode() {
    return with(deploy(CONTAINER_KEYS), Labels.GPU_PRESENT, "true");
  }

  @Test
  void row01NoNfdAtAllAddsNothingAndTurnsPresenceFalse() {
    assertThat(after(Map.of("kubernetes.io/os", "linux"), chartPolicy())).isEmpty();
    assertThat(after(Map.of(Labels.GPU_PRESENT, "true", DEPLOY + "driver", "true"), chartPolicy()))
        .isEqualTo(Map.of(Labels.GPU_PRESENT, "false"));
  }

  @Test
  void row02GpuNodeNotMigCapableGetsTheNineContainerKeys() {
    assertThat(after(gpuNode(), chartPolicy())).isEqualTo(containerNode());
  }

  @Test
  void row03NonGpuNodeGetsNothingAndLosesStrayDeployKeys() {
    assertThat(
            after(
                Map.of(
                    "feature.node.kubernetes.io/pci-1af4.present", "true", DEPLOY + "dcgm", "true"),
                chartPolicy()))
        .isEmpty();
  }

  @Test
  void row04NodeThatLostItsGpusKeepsMigConfig() {
    Map<String, String> before =
        with(
            containerNode(), Labels.MIG_CONFIG, "all-1g.10gb", "feature.node.kubernetes.io/x", "y");
    assertThat(after(before, chartPolicy()))
        .isEqualTo(Map.of(Labels.GPU_PRESENT, "false", Labels.MIG_CONFIG, "all-1g.10gb"));
  }

  @Test
  void row05MigCapableByLabelGetsMigManagerAndAllDisabled() {
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), chartPolicy()))
        .isEqualTo(
            with(
                containerNode(),
                Labels.MIG_CAPABLE,
                "true",
                DEPLOY + "mig-manager",
                "true",
                Labels.MIG_CONFIG,
                "all-disabled"));
  }

  @Test
  void row06MigCapableByProductBeforeFeatureDiscovery() {
    for (String product : List.of("NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-40GB", "NVIDIA-A30")) {
      assertThat(after(gpuNode(Labels.GPU_PRODUCT, product), chartPolicy()))
          .as(product)
          .containsEntry(DEPLOY + "mig-manager", "true")
          .containsEntry(Labels.MIG_CONFIG, "all-disabled");
    }
    assertThat(after(gpuNode(Labels.GPU_PRODUCT, "NVIDIA-H200"), chartPolicy()))
        .doesNotContainKeys(DEPLOY + "mig-manager", Labels.MIG_CONFIG);
  }

  @Test
  void row07MigCapableFalseWinsButKeepsWhatIsThere() {
    assertThat(
            after(
                gpuNode(Labels.MIG_CAPABLE, "false", Labels.GPU_PRODUCT, "NVIDIA-H100-80GB-HBM3"),
                chartPolicy()))
        .doesNotContainKeys(DEPLOY + "mig-manager", Labels.MIG_CONFIG);
    assertThat(
            after(
                gpuNode(
                    Labels.MIG_CAPABLE,
                    "false",
                    DEPLOY + "mig-manager",
                    "true",
                    Labels.MIG_CONFIG,
                    "all-balanced"),
                chartPolicy()))
        .containsEntry(DEPLOY + "mig-manager", "true")
        .containsEntry(Labels.MIG_CONFIG, "all-balanced");
  }

  @Test
  void row08MigManagerDisabledStillDeployKeyButNoMigConfig() {
    ClusterPolicy p = chartPolicy();
    p.getSpec().migManager.enabled = false;
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), p))
        .containsEntry(DEPLOY + "mig-manager", "true")
        .doesNotContainKey(Labels.MIG_CONFIG);
  }

  @Test
  void row09NoDefaultOrNoConfigMeansNoMigConfig() {
    ClusterPolicy empty = chartPolicy();
    empty.getSpec().migManager.config.defaultEntry = "";
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), empty))
        .doesNotContainKey(Labels.MIG_CONFIG);
    ClusterPolicy none = chartPolicy();
    none.getSpec().migManager.config = null;
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), none))
        .doesNotContainKey(Labels.MIG_CONFIG);
    // Only the original's value: another default layout is not written by the operator.
    ClusterPolicy other = chartPolicy();
    other.getSpec().migManager.config.defaultEntry = "all-balanced";
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), other))
        .doesNotContainKey(Labels.MIG_CONFIG);
  }

  @Test
  void row10ExistingMigConfigIsKept() {
    assertThat(
            after(
                gpuNode(Labels.MIG_CAPABLE, "true", Labels.MIG_CONFIG, "all-1g.10gb"),
                chartPolicy()))
        .containsEntry(Labels.MIG_CONFIG, "all-1g.10gb");
  }

  @Test
  void row11SandboxWithContainerDefaultIsAContainerNode() {
    ClusterPolicy p =
        sandbox(SandboxWorkloadsSpec.Workload.CONTAINER, SandboxWorkloadsSpec.Mode.KUBEVIRT);
    assertThat(after(gpuNode(), p)).isEqualTo(containerNode());
    assertThat(after(gpuNode(Labels.MIG_CAPABLE, "true"), p))
        .containsEntry(DEPLOY + "mig-manager", "true")
        .containsEntry(Labels.MIG_CONFIG, "all-disabled");
  }

  @Test
  void row12PassthroughKubevirt() {
    ClusterPolicy p =
        sandbox(SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH, SandboxWorkloadsSpec.Mode.KUBEVIRT);
    Map<String, String> before =
        with(containerNode(), DEPLOY + "mig-manager", "true", Labels.MIG_CAPABLE, "true");
    before.put(PCI, "true");
    assertThat(after(before, p))
        .isEqualTo(
            with(
                deploy(
                    List.of(
                        "sandbox-device-plugin",
                        "sandbox-validator",
                        "vfio-manager",
                        "kata-manager",
                        "cc-manager",
                        "client")),
                Labels.GPU_PRESENT,
                "true",
                Labels.MIG_CAPABLE,
                "true",
                Labels.MIG_CONFIG,
                "all-disabled"));
  }

  @Test
  void row13PassthroughKata() {
    ClusterPolicy p =
        sandbox(SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH, SandboxWorkloadsSpec.Mode.KATA);
    assertThat(after(gpuNode(), p))
        .containsEntry(DEPLOY + "kata-sandbox-device-plugin", "true")
        .doesNotContainKey(DEPLOY + "sandbox-device-plugin")
        .containsEntry(DEPLOY + "vfio-manager", "true");
  }

  @Test
  void row14VgpuWorkload() {
    ClusterPolicy p =
        sandbox(SandboxWorkloadsSpec.Workload.VM_VGPU, SandboxWorkloadsSpec.Mode.KUBEVIRT);
    assertThat(after(with(containerNode(), PCI, "true"), p))
        .isEqualTo(
            with(
                deploy(
                    List.of(
                        "sandbox-device-plugin",
                        "vgpu-manager",
                        "vgpu-device-manager",
                        "sandbox-validator",
                        "cc-manager",
                        "client")),
                Labels.GPU_PRESENT,
                "true"));
  }

  @Test
  void row15NodeWorkloadLabelOverridesTheDefaultInvalidFallsBack() {
    ClusterPolicy p =
        sandbox(SandboxWorkloadsSpec.Workload.CONTAINER, SandboxWorkloadsSpec.Mode.KUBEVIRT);
    assertThat(after(gpuNode(Labels.WORKLOAD_CONFIG, "vm-vgpu"), p))
        .containsEntry(DEPLOY + "vgpu-manager", "true")
        .doesNotContainKey(DEPLOY + "driver");
    assertThat(after(gpuNode(Labels.WORKLOAD_CONFIG, "nonsense"), p))
        .containsEntry(DEPLOY + "driver", "true");
  }

  @Test
  void row16WorkloadLabelIgnoredWithoutSandbox() {
    assertThat(after(gpuNode(Labels.WORKLOAD_CONFIG, "vm-passthrough"), chartPolicy()))
        .isEqualTo(with(containerNode(), Labels.WORKLOAD_CONFIG, "vm-passthrough"));
  }

  @Test
  void row17UsersFalseIsKeptEmptyBecomesTrue() {
    assertThat(after(gpuNode(DEPLOY + "dcgm", "false", DEPLOY + "driver", ""), chartPolicy()))
        .containsEntry(DEPLOY + "dcgm", "false")
        .containsEntry(DEPLOY + "driver", "true");
  }

  @Test
  void row18KillSwitchRemovesAllDeployKeysButMigConfigMayStillBeSet() {
    Map<String, String> before =
        with(
            containerNode(),
            PCI,
            "true",
            Labels.DEPLOY_OPERANDS,
            "false",
            DEPLOY + "mig-manager",
            "true",
            Labels.MIG_CAPABLE,
            "true");
    assertThat(after(before, chartPolicy()))
        .isEqualTo(
            Map.of(
                Labels.GPU_PRESENT,
                "true",
                Labels.DEPLOY_OPERANDS,
                "false",
                Labels.MIG_CAPABLE,
                "true",
                Labels.MIG_CONFIG,
                "all-disabled"));
  }

  @Test
  void row19VgpuHostIsNeverMigCapable() {
    Map<String, String> labels =
        gpuNode(
            Labels.VGPU_HOST_DRIVER_VERSION, "550.54",
            Labels.MIG_CAPABLE, "true",
            Labels.GPU_PRODUCT, "NVIDIA-A100-SXM4-40GB");
    assertThat(NodeLabelRules.isMigCapable(node(labels))).isFalse();
    assertThat(after(labels, chartPolicy()))
        .doesNotContainKeys(DEPLOY + "mig-manager", Labels.MIG_CONFIG)
        .containsEntry(DEPLOY + "driver", "true");
  }

  @Test
  void row20NoClusterPolicyManagesNothing() {
    // The operator runs the rules only for an active policy; without one the node reconciler
    // leaves labels alone, and only the taint it recorded as added is taken back (cleanup).
    Node n = node(containerNode());
    NodeLabelChange cleanup = NodeLabelRules.cleanup(n);
    assertThat(cleanup.labelsToSet()).isEmpty();
    assertThat(cleanup.labelsToRemove()).isEmpty();
    assertThat(cleanup.isEmpty()).isTrue();
  }
}

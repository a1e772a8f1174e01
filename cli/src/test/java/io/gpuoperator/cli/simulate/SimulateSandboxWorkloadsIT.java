package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec.Workload;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.sim.kubelet.ClusterFile;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sandbox workloads on a simulated cluster with the real control plane: a container node, a
 * vm-passthrough node and a vm-vgpu node (picked by their {@code nvidia.com/gpu.workload.config}
 * labels) under a KubeVirt-mode policy with a vGPU manager image and a ConfigMap of vGPU layouts.
 * NVIDIA's sandbox images run as the simulator's stand-ins (VFIO manager, vGPU manager, vGPU device
 * manager, KubeVirt device plugin) against each node's simulated sysfs, the sandbox validator's
 * steps pass on what they left there, and the cluster becomes ready: the container node advertises
 * {@code nvidia.com/gpu}, the passthrough node one {@code nvidia.com/GH100_H100_SXM5_80GB} per GPU,
 * the vGPU node its vGPUs, and nothing of the container stack runs on the VM nodes.
 */
class SimulateSandboxWorkloadsIT {
  static final String CONTAINER = "sb-l4";
  static final String PASSTHROUGH = "sb-h100";
  static final String VGPU = "sb-a100";
  static final String NS = "gpu-operator";
  static final String PASSTHROUGH_RESOURCE = "nvidia.com/GH100_H100_SXM5_80GB";
  static final String VGPU_RESOURCE = "nvidia.com/NVIDIA_A100-10C";

  static final String POLICY =
      Simulation.clusterPolicy(
          """
          sandboxWorkloads:
            enabled: true
            mode: kubevirt
          vgpuManager:
            enabled: true
            repository: registry.example.com/vgpu
            image: vgpu-manager
            version: "580.65.05"
          vgpuDeviceManager:
            enabled: true
            config:
              name: vgpu-layouts
              default: A100-5C
          vfioManager:
            enabled: true
          sandboxDevicePlugin:
            enabled: true
          """);

  static final String LAYOUTS =
      """
      version: v1
      vgpu-configs:
        A100-5C:
        - devices: all
          vgpu-devices: {A100-5C: 8}
        A100-10C:
        - devices: all
          vgpu-devices: {A100-10C: 4}
      """;

  /** The layouts ConfigMap as a user gives it: in the cluster file's {@code objects:}. */
  static final List<Map<String, Object>> OBJECTS =
      ClusterFile.parse(
              """
              nodes:
              - name: unused
              objects:
              - apiVersion: v1
                kind: ConfigMap
                metadata: {name: vgpu-layouts}
                data:
                  config.yaml: |
              """
                  + LAYOUTS.indent(6),
              "cluster file")
          .objects();

  /** What may run on a VM node: the sandbox operands only. */
  static final Set<String> SANDBOX_DAEMONSETS =
      Set.of(
          "nvidia-vfio-manager",
          "nvidia-vgpu-manager-daemonset",
          "nvidia-vgpu-device-manager",
          "nvidia-sandbox-device-plugin-daemonset",
          "nvidia-sandbox-validator");

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.of(
          b ->
              b.policy(POLICY, "SimulateSandboxWorkloadsIT policy")
                  .beforePolicy(c -> ClusterObjects.create(c, NS, OBJECTS)),
          NodeDescription.gpuNode(CONTAINER, "L4", 1),
          NodeDescription.gpuNode(PASSTHROUGH, "H100-SXM5-80GB", 2)
              .withLabels(Map.of("nvidia.com/gpu.workload.config", "vm-passthrough")),
          // The node's label picks A100-10C over the policy's default A100-5C.
          NodeDescription.gpuNode(VGPU, "A100-SXM4-40GB", 2)
              .withLabels(
                  Map.of(
                      "nvidia.com/gpu.workload.config", "vm-vgpu",
                      "nvidia.com/vgpu.config", "A100-10C")));

  @Test
  void eachNodeRunsItsWorkloadsStackAndTheClusterBecomesReady() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(5), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
    assertThat(status.nodes())
        .extracting(SimulationStatus.NodeRow::workload)
        .containsExactly(Workload.CONTAINER, Workload.VM_PASSTHROUGH, Workload.VM_VGPU);

    // The container node: the container stack, as without sandbox workloads.
    assertThat(SIM.allocatable(CONTAINER, "nvidia.com/gpu")).isEqualTo(1);
    assertThat(SIM.labels(CONTAINER)).containsEntry("nvidia.com/gpu.product", "NVIDIA-L4");

    // The passthrough node: both GPUs bound to vfio-pci, validated, advertised for passthrough.
    NodeDirs pt = SIM.sim().kubelet(PASSTHROUGH).dirs();
    assertThat(Files.readString(pt.validations().resolve("workload-type")))
        .isEqualTo("vm-passthrough\n");
    assertThat(pt.validations().resolve("vfio-pci-ready")).exists();
    assertThat(pt.validations().resolve("vgpu-devices-ready")).doesNotExist();
    SimulatedSysfs ptSys = new SimulatedSysfs(pt.hostPath("/sys"));
    for (String gpu : ptSys.nvidiaGpus()) {
      assertThat(ptSys.driver(gpu)).isEqualTo("vfio-pci");
    }
    assertThat(SIM.allocatable(PASSTHROUGH, PASSTHROUGH_RESOURCE)).isEqualTo(2);
    assertThat(SIM.sim().devicePlugins(PASSTHROUGH).devices().registrations(PASSTHROUGH_RESOURCE))
        .isPositive();

    // The vGPU node: mdev parents, the label's layout (4 x A100-10C per GPU), validated,
    // advertised.
    NodeDirs vg = SIM.sim().kubelet(VGPU).dirs();
    assertThat(Files.readString(vg.validations().resolve("workload-type"))).isEqualTo("vm-vgpu\n");
    assertThat(
            Files.exists(vg.validations().resolve("vgpu-manager-ready"))
                || Files.exists(vg.validations().resolve("host-vgpu-manager-ready")))
        .isTrue();
    assertThat(vg.validations().resolve("vgpu-devices-ready")).exists();
    assertThat(vg.validations().resolve("vfio-pci-ready")).doesNotExist();
    SimulatedSysfs vgSys = new SimulatedSysfs(vg.hostPath("/sys"));
    assertThat(vgSys.mdevParents()).hasSize(2);
    assertThat(vgSys.mdevDevices())
        .hasSize(8)
        .extracting(SimulatedSysfs.Mdev::type)
        .containsOnly("A100-10C");
    assertThat(SIM.labels(VGPU)).containsEntry("nvidia.com/vgpu.config.state", "success");
    assertThat(SIM.allocatable(VGPU, VGPU_RESOURCE)).isPositive().isLessThanOrEqualTo(8);

    // Nothing of the container stack on the VM nodes: no GPU resource, no product, only the
    // sandbox operands' pods.
    for (String vm : List.of(PASSTHROUGH, VGPU)) {
      assertThat(SIM.allocatable(vm, "nvidia.com/gpu")).as(vm).isZero();
      assertThat(SIM.labels(vm)).as(vm).doesNotContainKey("nvidia.com/gpu.product");
      assertThat(daemonSetsOn(vm)).as(vm).isNotEmpty().isSubsetOf(SANDBOX_DAEMONSETS);
    }
    assertThat(daemonSetsOn(PASSTHROUGH))
        .contains("nvidia-vfio-manager")
        .doesNotContain("nvidia-vgpu-manager-daemonset");
    assertThat(daemonSetsOn(VGPU))
        .contains("nvidia-vgpu-manager-daemonset", "nvidia-vgpu-device-manager")
        .doesNotContain("nvidia-vfio-manager");
    assertThat(daemonSetsOn(CONTAINER)).doesNotContainAnyElementsOf(SANDBOX_DAEMONSETS);
    assertThat(Path.of(vg.hostPath("/sys").toString(), "class/mdev_bus")).isDirectory();
  }

  @Test
  void clusterFileObjectsTheApiServerRefusesAreBadInputNamingTheObject() {
    var noKey =
        Map.<String, Object>of(
            "apiVersion", "v1",
            "kind", "Secret",
            "type", "kubernetes.io/tls",
            "metadata", Map.of("name", "bad-tls"));
    assertThatThrownBy(() -> ClusterObjects.create(SIM.client(), NS, List.of(noKey)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--cluster-file objects[0] (Secret bad-tls): the API server refused")
        .hasMessageContaining("tls.crt");
    var typo =
        Map.<String, Object>of(
            "apiVersion", "v1", "kind", "ConfigMapp", "metadata", Map.of("name", "x"));
    assertThatThrownBy(() -> ClusterObjects.create(SIM.client(), NS, List.of(typo)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "objects[0] (ConfigMapp x): the API server serves no kind ConfigMapp in v1");
  }

  private static Set<String> daemonSetsOn(String node) {
    Set<String> out = new TreeSet<>();
    for (Pod p : SIM.client().pods().inNamespace(NS).list().getItems()) {
      if (node.equals(p.getSpec().getNodeName()) && SimulationStatus.ownedByDaemonSet(p)) {
        out.add(p.getMetadata().getOwnerReferences().get(0).getName());
      }
    }
    return out;
  }
}

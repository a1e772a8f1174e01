package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec.Workload;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulationStatusTest {
  static SimulationStatus.NodeRow row(
      String name, int gpus, String product, Map<String, Long> resources) {
    return new SimulationStatus.NodeRow(
        name, gpus, product, resources, 3, 3, "True", true, Workload.CONTAINER, null);
  }

  @Test
  void readyNeedsAReadyPolicyProductLabelsAndAdvertisedGpus() {
    var h100 = row("h100", 8, "NVIDIA-H100-80GB-HBM3", Map.of("nvidia.com/gpu", 8L));
    var cpu = row("cpu", 0, null, Map.of());
    assertThat(new SimulationStatus("ready", List.of(), List.of(h100, cpu)).ready()).isTrue();
    assertThat(new SimulationStatus("notReady", List.of("x"), List.of(h100, cpu)).ready())
        .isFalse();
    var unlabelled = row("h100", 8, null, Map.of("nvidia.com/gpu", 8L));
    var s = new SimulationStatus("ready", List.of(), List.of(unlabelled, cpu));
    assertThat(s.ready()).isFalse();
    assertThat(s.reasons()).containsExactly("node h100 has no nvidia.com/gpu.product label");
    var half = row("h100", 8, "NVIDIA-H100-80GB-HBM3", Map.of("nvidia.com/gpu", 4L));
    s = new SimulationStatus("ready", List.of(), List.of(half));
    assertThat(s.ready()).isFalse();
    assertThat(s.reasons()).containsExactly("node h100 has 8 GPUs but advertises nvidia.com/gpu=4");
    var cpuLabelled = row("cpu", 0, "NVIDIA-L4", Map.of());
    assertThat(new SimulationStatus("ready", List.of(), List.of(cpuLabelled)).reasons())
        .containsExactly("node cpu has no GPU but is labelled NVIDIA-L4");
  }

  @Test
  void timeSlicedAndMigNodesAdvertiseTheirGpus() {
    assertThat(row("l4", 2, "NVIDIA-L4", Map.of("nvidia.com/gpu", 8L)).advertisesGpus()).isTrue();
    assertThat(row("l4", 2, "NVIDIA-L4", Map.of("nvidia.com/gpu", 3L)).advertisesGpus()).isFalse();
    assertThat(row("mig", 1, "NVIDIA-H100", Map.of("nvidia.com/mig-1g.10gb", 7L)).advertisesGpus())
        .isTrue();
    assertThat(row("none", 1, "NVIDIA-H100", Map.of()).advertisesGpus()).isFalse();
  }

  @Test
  void notReadyPolicyReasonNamesItsOperands() {
    var s =
        new SimulationStatus(
            "notReady", List.of("driver 0/2 nodes ready"), List.of(row("cpu", 0, null, Map.of())));
    assertThat(s.reasons())
        .containsExactly("ClusterPolicy state is notReady (driver 0/2 nodes ready)");
    assertThat(new SimulationStatus(null, List.of(), List.of()).reasons())
        .containsExactly("ClusterPolicy state is not reported yet");
  }

  @Test
  void tableHasOneAlignedRowPerNode() {
    var s =
        new SimulationStatus(
            "ready",
            List.of(),
            List.of(
                row("h100-0", 8, "NVIDIA-H100-80GB-HBM3", Map.of("nvidia.com/gpu", 8L)),
                row("cpu-0", 0, null, Map.of())));
    assertThat(s.table())
        .containsExactly(
            "NODE    PRODUCT                GPUS  ALLOCATABLE       OPERANDS READY  READY",
            "h100-0  NVIDIA-H100-80GB-HBM3  8     nvidia.com/gpu=8  3/3             True",
            "cpu-0   -                      0     -                 3/3             True");
  }

  @Test
  void withAutoUpgradeGpuNodesWaitForTheOperatorToMarkTheirDriverUpgradeDone() {
    List<NodeDescription> nodes =
        List.of(NodeDescription.gpuNode("l4-0", "L4", 2), NodeDescription.cpuNode("cpu-0"));
    ClusterPolicy policy = new ClusterPolicy();
    policy.setSpec(new ClusterPolicySpec());
    policy.getSpec().driver = new DriverSpec();
    policy.getSpec().driver.upgradePolicy = new UpgradePolicySpec();
    policy.getSpec().driver.upgradePolicy.autoUpgrade = true;
    Node labelled = gpuNode(Map.of("nvidia.com/gpu.product", "NVIDIA-L4"));
    Node done =
        gpuNode(
            Map.of(
                "nvidia.com/gpu.product",
                "NVIDIA-L4",
                "nvidia.com/gpu-driver-upgrade-state",
                "upgrade-done"));
    Node cpu = new NodeBuilder().withNewMetadata().withName("cpu-0").endMetadata().build();

    SimulationStatus waiting =
        SimulationStatus.of(nodes, List.of(labelled, cpu), List.of(), policy);
    assertThat(waiting.nodes())
        .extracting(SimulationStatus.NodeRow::driverSettled)
        .containsExactly(false, true);
    assertThat(waiting.reasons())
        .contains("node l4-0 has no nvidia.com/gpu-driver-upgrade-state=upgrade-done label yet");
    assertThat(ProgressPrinter.countsLine(waiting)).endsWith(", upgrade-done 0/1");
    assertThat(SimulationStatus.of(nodes, List.of(done, cpu), List.of(), policy).nodes())
        .allMatch(SimulationStatus.NodeRow::driverSettled);

    // Without auto-upgrade the operator writes no upgrade state: nothing to wait for.
    policy.getSpec().driver.upgradePolicy.autoUpgrade = false;
    SimulationStatus off = SimulationStatus.of(nodes, List.of(labelled, cpu), List.of(), policy);
    assertThat(off.nodes()).allMatch(SimulationStatus.NodeRow::driverSettled);
    assertThat(ProgressPrinter.countsLine(off)).doesNotContain("upgrade-done");
  }

  @Test
  void aNodesWorkloadDecidesWhatItMustAdvertise() {
    List<NodeDescription> nodes =
        List.of(
            NodeDescription.gpuNode("ctr", "L4", 2),
            NodeDescription.gpuNode("pt", "H100-SXM5-80GB", 2),
            NodeDescription.gpuNode("vgpu", "A100-SXM4-40GB", 1),
            NodeDescription.gpuNode("unlabelled", "L4", 1));
    ClusterPolicy policy = new ClusterPolicy();
    policy.setSpec(new ClusterPolicySpec());
    policy.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    policy.getSpec().sandboxWorkloads.enabled = true;
    policy.getSpec().sandboxWorkloads.defaultWorkload = SandboxWorkloadsSpec.Workload.VM_VGPU;
    Node ctr =
        node(
            "ctr",
            Map.of(
                "nvidia.com/gpu.workload.config",
                "container",
                "nvidia.com/gpu.product",
                "NVIDIA-L4"),
            Map.of("nvidia.com/gpu", "2"));
    Node pt =
        node(
            "pt",
            Map.of("nvidia.com/gpu.workload.config", "vm-passthrough"),
            Map.of("nvidia.com/GH100_H100_SXM5_80GB", "1"));
    Node vgpu =
        node("vgpu", Map.of("nvidia.com/gpu.workload.config", "vm-vgpu"), Map.of("cpu", "8"));
    Node unlabelled = node("unlabelled", Map.of(), Map.of("nvidia.com/NVIDIA_L4-12C", "2"));

    SimulationStatus s =
        SimulationStatus.of(nodes, List.of(ctr, pt, vgpu, unlabelled), List.of(), policy);
    assertThat(s.nodes())
        .extracting(SimulationStatus.NodeRow::workload)
        .containsExactly(
            SandboxWorkloadsSpec.Workload.CONTAINER,
            SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH,
            SandboxWorkloadsSpec.Workload.VM_VGPU,
            SandboxWorkloadsSpec.Workload.VM_VGPU);
    // VM nodes need no product label; each lacks what its workload advertises.
    assertThat(s.reasons())
        .containsExactly(
            "ClusterPolicy state is not reported yet",
            "node pt (vm-passthrough) has 2 GPUs but advertises 1"
                + " nvidia.com/GH100_H100_SXM5_80GB for passthrough (allocatable:"
                + " nvidia.com/GH100_H100_SXM5_80GB=1)",
            "node vgpu (vm-vgpu) advertises no vGPU (nvidia.com/<vGPU type>; allocatable: -)");
    assertThat(s.nodes().get(3).advertisesGpus()).as("the default workload, vm-vgpu").isTrue();

    pt = node("pt", pt.getMetadata().getLabels(), Map.of("nvidia.com/GH100_H100_SXM5_80GB", "2"));
    vgpu = node("vgpu", vgpu.getMetadata().getLabels(), Map.of("nvidia.com/NVIDIA_A100-10C", "4"));
    s = SimulationStatus.of(nodes, List.of(ctr, pt, vgpu, unlabelled), List.of(), policy);
    assertThat(new SimulationStatus("ready", List.of(), s.nodes()).ready()).isTrue();
    // A passthrough resource is no vGPU, and nvidia.com/gpu is no passthrough.
    assertThat(s.nodes().get(1).vgpuAllocatable()).isZero();
    var gpuOnVm = node("pt", pt.getMetadata().getLabels(), Map.of("nvidia.com/gpu", "2"));
    assertThat(
            SimulationStatus.of(nodes, List.of(ctr, gpuOnVm, vgpu, unlabelled), List.of(), policy)
                .nodes()
                .get(1)
                .advertisesGpus())
        .isFalse();

    // With sandbox workloads off, the label means nothing: every GPU node runs containers.
    policy.getSpec().sandboxWorkloads.enabled = false;
    assertThat(
            SimulationStatus.of(nodes, List.of(ctr, pt, vgpu, unlabelled), List.of(), policy)
                .reasons())
        .contains(
            "node pt has no nvidia.com/gpu.product label", "node pt has 2 GPUs but advertises -");
  }

  private static Node node(String name, Map<String, String> labels, Map<String, String> alloc) {
    Map<String, Quantity> q = new java.util.TreeMap<>();
    alloc.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withAllocatable(q)
        .endStatus()
        .build();
  }

  private static Node gpuNode(Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("l4-0")
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withAllocatable(Map.of("nvidia.com/gpu", new Quantity("2")))
        .endStatus()
        .build();
  }
}

package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulationStatusTest {
  static SimulationStatus.NodeRow row(
      String name, int gpus, String product, Map<String, Long> resources) {
    return new SimulationStatus.NodeRow(name, gpus, product, resources, 3, 3, "True", true);
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

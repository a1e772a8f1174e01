package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 12, point 7: a simulated cluster whose nodes carry no NFD label at all (no NFD runs) ends
 * with its GPU nodes labelled and served. Nothing but the operator's own rendering starts the loop:
 * the {@code nvidia-pci-discovery} DaemonSet it renders without NFD runs {@code pci-discovery} on
 * every node, which labels {@code nvidia.com/gpu.pci.present} from the node's PCI devices, the
 * operator then makes the GPU nodes GPU nodes, and feature discovery labels them.
 */
class DiscoveryWithoutNfdIT {
  static final String GPU = "nonfd-l4";
  static final String CPU = "nonfd-cpu";

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.quick(
          b -> b, // the default policy
          NodeDescription.gpuNode(GPU, "L4", 2).withNfd(false),
          NodeDescription.cpuNode(CPU).withNfd(false));

  @Test
  void gpuNodesAreFoundAndLabelledWithoutNfd() throws InterruptedException {
    for (String node : List.of(GPU, CPU)) {
      assertThat(SIM.labels(node).keySet())
          .noneMatch(k -> k.startsWith("feature.node.kubernetes.io/"));
    }
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.notReady()).isTrue();

    Map<String, String> gpu = SIM.labels(GPU);
    assertThat(gpu)
        .containsEntry("nvidia.com/gpu.pci.present", "true")
        .containsEntry("nvidia.com/gpu.present", "true")
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-L4")
        .containsEntry("nvidia.com/gpu.count", "2")
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
    assertThat(SIM.client().nodes().withName(GPU).get().getStatus().getAllocatable())
        .containsKey("nvidia.com/gpu");
    assertThat(
            SIM.client()
                .nodes()
                .withName(GPU)
                .get()
                .getStatus()
                .getAllocatable()
                .get("nvidia.com/gpu"))
        .hasToString("2");

    Map<String, String> cpu = SIM.labels(CPU);
    assertThat(cpu).containsEntry("nvidia.com/gpu.pci.present", "false");
    assertThat(cpu.keySet())
        .doesNotContain("nvidia.com/gpu.present", "nvidia.com/gpu.product")
        .noneMatch(k -> k.startsWith("nvidia.com/gpu.deploy."));

    // Every node labelled: the discovery DaemonSet selects no node any more, and its pods are gone.
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> {
              DaemonSet ds = SIM.daemonSet("nvidia-pci-discovery");
              assertThat(ds.getStatus().getDesiredNumberScheduled()).isZero();
              assertThat(
                      SIM.client()
                          .pods()
                          .inNamespace(SIM.sim().namespace())
                          .withLabel("app", "nvidia-pci-discovery")
                          .list()
                          .getItems())
                  .isEmpty();
            });
  }
}

package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeModelTest {

  @Test
  void gpuNodeGetsNvidiaPciAndOsKernelLabels() {
    NodeDescription d = NodeDescription.gpuNode("g1", "A100-SXM4-40GB", 4);
    assertThat(NodeModel.labels(d))
        .containsEntry("feature.node.kubernetes.io/pci-10de.present", "true")
        .containsEntry("feature.node.kubernetes.io/pci-0302_10de.present", "true")
        .containsEntry("feature.node.kubernetes.io/system-os_release.ID", "ubuntu")
        .containsEntry("feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04")
        .containsEntry("feature.node.kubernetes.io/system-os_release.VERSION_ID.major", "22")
        .containsEntry("feature.node.kubernetes.io/kernel-version.full", "5.15.0-105-generic")
        .containsEntry("feature.node.kubernetes.io/kernel-version.major", "5")
        .containsEntry("feature.node.kubernetes.io/kernel-version.minor", "15")
        .containsEntry("kubernetes.io/hostname", "g1");
  }

  @Test
  void cpuNodeHasNfdLabelsButNoNvidiaDevice() {
    assertThat(NodeModel.labels(NodeDescription.cpuNode("c1")))
        .containsEntry("feature.node.kubernetes.io/pci-1af4.present", "true")
        .doesNotContainKeys(
            "feature.node.kubernetes.io/pci-10de.present",
            "feature.node.kubernetes.io/pci-0302_10de.present");
  }

  @Test
  void registeredNodeIsReadyWithCapacityAndNodeInfo() {
    Instant now = Instant.parse("2026-01-01T10:00:00.123Z");
    Node n = NodeModel.node(NodeDescription.gpuNode("g1", "H100-SXM5-80GB", 8), 3, now);
    assertThat(n.getStatus().getConditions())
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo("Ready");
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getLastHeartbeatTime()).isEqualTo("2026-01-01T10:00:00Z");
            });
    assertThat(n.getStatus().getConditions()).hasSize(4);
    assertThat(n.getStatus().getCapacity().get("pods").getAmount()).isEqualTo("110");
    assertThat(n.getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
    assertThat(n.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("containerd://1.7.24");
    assertThat(n.getStatus().getNodeInfo().getOsImage()).isEqualTo("Ubuntu 22.04 LTS");
    assertThat(n.getStatus().getAddresses().get(0).getAddress()).isEqualTo("172.18.0.5");
  }
}

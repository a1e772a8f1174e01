package io.gpuoperator.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class NodeSlimmingTest {
  @Test
  void keepsWhatTheControllersReadDropsTheRest() {
    Node n =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .withResourceVersion("7")
            .addToLabels("nvidia.com/gpu.present", "true")
            .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubelet").build())
            .endMetadata()
            .withNewSpec()
            .addNewTaint()
            .withKey("nvidia.com/gpu")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .withNewStatus()
            .withImages(new ContainerImageBuilder().addToNames("nvcr.io/nvidia/driver:1").build())
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withLastHeartbeatTime("2026-12-06T00:00:00Z")
            .withMessage("kubelet is posting ready status")
            .endCondition()
            .addNewCondition()
            .withType("MemoryPressure")
            .withStatus("False")
            .endCondition()
            .addNewCondition()
            .withType("GpuLost")
            .withStatus("True")
            .withReason("FallenOffTheBus")
            .withMessage("GPU-1: XID 79 (1 time, first seen ...)")
            .endCondition()
            .addNewCondition()
            .withType("GpuEccError")
            .withStatus("False")
            .withReason("Recovered")
            .endCondition()
            .withNewNodeInfo()
            .withContainerRuntimeVersion("containerd://1.7")
            .endNodeInfo()
            .endStatus()
            .build();
    Node slim = NodeSlimming.slim(n);
    assertThat(slim.getMetadata().getLabels()).containsEntry("nvidia.com/gpu.present", "true");
    assertThat(slim.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(slim.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(slim.getSpec().getTaints()).hasSize(1);
    assertThat(slim.getStatus().getImages()).isNullOrEmpty();
    // Ready without heartbeat or message (the upgrade's readiness), and every GPU fault condition
    // as it is (remediation reads a True fault's message; the circuit breaker counts True ones).
    assertThat(slim.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus())
        .containsExactly("Ready=True", "GpuLost=True", "GpuEccError=False");
    assertThat(slim.getStatus().getConditions().get(0).getLastHeartbeatTime()).isNull();
    assertThat(slim.getStatus().getConditions().get(1).getMessage())
        .isEqualTo("GPU-1: XID 79 (1 time, first seen ...)");
    assertThat(slim.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("containerd://1.7");
  }
}

package io.gpuoperator.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerImageBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class NodeSlimmingTest {
  @Test
  void keepsLabelsTaintsAndRuntimeDropsTheRest() {
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
    // Only a True GPU fault condition is kept (the circuit breaker counts them), without its
    // message, which advances with every fault seen.
    assertThat(slim.getStatus().getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("GpuLost");
              assertThat(c.getReason()).isEqualTo("FallenOffTheBus");
              assertThat(c.getMessage()).isNull();
            });
    assertThat(slim.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("containerd://1.7");
  }
}

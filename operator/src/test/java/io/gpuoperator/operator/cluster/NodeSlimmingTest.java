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
    assertThat(slim.getStatus().getConditions()).isNullOrEmpty();
    assertThat(slim.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("containerd://1.7");
  }
}

package io.gpuoperator.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.gpuoperator.operator.remediation.RemediationNode;
import io.gpuoperator.operator.remediation.RemediationPatch;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.operator.remediation.RemediationStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node patches the upgrade and remediation write: JSON merge patches in which null removes a
 * key, and an uncordon removes spec.unschedulable as kubectl uncordon does.
 */
class NodePatchTest {
  @Test
  void anUpgradeStepCordonsSetsAndRemovesInOnePatch() {
    Step cordon =
        Step.to(UpgradeState.CORDON_REQUIRED)
            .annotate("a", "1")
            .remove("b")
            .unschedulable(true)
            .build();
    assertThat(NodePatch.of(cordon))
        .isEqualTo(
            "{\"metadata\":{\"labels\":{\"nvidia.com/gpu-driver-upgrade-state\":\"cordon-required\"},"
                + "\"annotations\":{\"a\":\"1\",\"b\":null}},\"spec\":{\"unschedulable\":true}}");
    assertThat(NodePatch.of(Step.to(UpgradeState.UPGRADE_DONE).unschedulable(false).build()))
        .isEqualTo(
            "{\"metadata\":{\"labels\":{\"nvidia.com/gpu-driver-upgrade-state\":\"upgrade-done\"}},"
                + "\"spec\":{\"unschedulable\":null}}");
  }

  @Test
  void aRemediationStepCarriesStateAnnotationsCordonAndTheWholeTaintList() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .endMetadata()
            .withNewSpec()
            .addNewTaint()
            .withKey("other")
            .withValue("x")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .build();
    RemediationStep drain =
        RemediationStep.to(RemediationState.DRAINING)
            .annotate("a", "1")
            .remove("b")
            .unschedulable(true)
            .taint("GpuEccError")
            .build();
    assertThat(RemediationPatch.of(RemediationNode.of(node, List.of()), drain, "7"))
        .isEqualTo(
            "{\"metadata\":{\"labels\":{\"nvidia.com/gpu-remediation-state\":\"draining\"},"
                + "\"annotations\":{\"a\":\"1\",\"b\":null},\"resourceVersion\":\"7\"},"
                + "\"spec\":{\"unschedulable\":true,\"taints\":["
                + "{\"effect\":\"NoSchedule\",\"key\":\"other\",\"value\":\"x\"},"
                + "{\"key\":\"nvidia.com/gpu-fault\",\"value\":\"GpuEccError\","
                + "\"effect\":\"NoSchedule\"}]}}");
    RemediationStep back = RemediationStep.to(RemediationState.NONE).unschedulable(false).build();
    assertThat(RemediationPatch.of(RemediationNode.of(node, List.of()), back, "7"))
        .isEqualTo(
            "{\"metadata\":{\"labels\":{\"nvidia.com/gpu-remediation-state\":null},"
                + "\"annotations\":{}},\"spec\":{\"unschedulable\":null}}");
  }
}

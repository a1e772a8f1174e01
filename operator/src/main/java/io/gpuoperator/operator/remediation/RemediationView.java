package io.gpuoperator.operator.remediation;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.operator.labels.Labels;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The parts of a Node remediation reads (NodeSlimming keeps them in the cache): labels,
 * annotations, taints, cordon, and of the status only Ready, the GPU fault conditions and the reset
 * answer (a real Node's status is mostly images and volumes).
 */
public final class RemediationView {
  private RemediationView() {}

  private static boolean read(NodeCondition c) {
    return "Ready".equals(c.getType())
        || GpuFaultContract.RESET_CONDITION.equals(c.getType())
        || GpuFaultContract.FAULT_TYPES.contains(c.getType());
  }

  /** Whether a node has GPUs (the operator's gpu.present label) or remediation state. */
  public static boolean gpuNode(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    return l != null
        && (Labels.TRUE.equals(l.get(Labels.GPU_PRESENT)) || l.containsKey(RemediationKeys.STATE));
  }

  /**
   * The changes that matter to remediation: labels, annotations, taints, cordon, and the status and
   * reason of Ready, the fault conditions and the reset answer (not a fault's message, which
   * advances with counts and times).
   */
  public static boolean changed(Node a, Node b) {
    return !Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
        || !Objects.equals(a.getMetadata().getAnnotations(), b.getMetadata().getAnnotations())
        || !Objects.equals(taints(a), taints(b))
        || !Objects.equals(a.getSpec().getUnschedulable(), b.getSpec().getUnschedulable())
        || !Objects.equals(conditions(a), conditions(b));
  }

  private static Object taints(Node n) {
    return n.getSpec() == null ? null : n.getSpec().getTaints();
  }

  private static List<String> conditions(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return List.of();
    }
    return n.getStatus().getConditions().stream()
        .filter(RemediationView::read)
        .map(
            c ->
                c.getType()
                    + "="
                    + c.getStatus()
                    + "/"
                    + c.getReason()
                    + (GpuFaultContract.RESET_CONDITION.equals(c.getType()) ? c.getMessage() : ""))
        .sorted()
        .toList();
  }
}

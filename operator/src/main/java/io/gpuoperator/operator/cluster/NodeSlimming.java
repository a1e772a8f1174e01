package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.gpuoperator.api.GpuFaultContract;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;

/**
 * Keeps cached Nodes small: the operator reads labels, taints, the container runtime and whether a
 * GPU fault condition is True (the remediation circuit breaker's count), while a real Node's status
 * (image list, other conditions, volumes) and managedFields are most of its size and grow with the
 * cluster. Two Node caches (node labels, policy facts) hold only what is read.
 */
public final class NodeSlimming {
  private NodeSlimming() {}

  /** Strips the node in place and returns it. */
  public static Node slim(Node node) {
    node.getMetadata().setManagedFields(null);
    NodeStatus status = node.getStatus();
    if (status != null) {
      NodeStatus kept = new NodeStatus();
      kept.setNodeInfo(status.getNodeInfo());
      if (status.getConditions() != null) {
        var faults =
            status.getConditions().stream()
                .filter(c -> GpuFaultContract.FAULT_TYPES.contains(c.getType()))
                .filter(c -> "True".equals(c.getStatus()))
                .map(
                    c ->
                        new NodeConditionBuilder()
                            .withType(c.getType())
                            .withStatus(c.getStatus())
                            .withReason(c.getReason())
                            .build())
                .toList();
        if (!faults.isEmpty()) {
          kept.setConditions(faults);
        }
      }
      node.setStatus(kept);
    }
    return node;
  }

  /** An informer store that keeps slimmed Nodes. */
  public static TransformingItemStore<Node> store() {
    return new TransformingItemStore<>(NodeSlimming::slim);
  }
}

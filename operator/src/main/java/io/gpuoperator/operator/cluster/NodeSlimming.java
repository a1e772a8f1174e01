package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.gpuoperator.api.GpuFaultContract;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;

/**
 * Keeps cached Nodes small: what every controller reads from a node, and nothing else. Metadata
 * (without managedFields) and the spec (taints, cordon) stay; of the status only the node info
 * (container runtime, kernel, OS), the Ready condition without its heartbeat or message (the driver
 * upgrade's readiness), the GPU fault conditions (remediation and the circuit breaker) and the
 * reset answer (remediation reads its message) are kept. A real Node's status (image list, volumes,
 * other conditions) and managedFields are most of its size and grow with the cluster. One owner for
 * the node labeller's primary cache and the shared cache of every other controller (the reconciler
 * package's SharedNodes), and for the nodes they patch ({@link WrittenNodes}).
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
        var read =
            status.getConditions().stream()
                .filter(NodeSlimming::read)
                .map(c -> "Ready".equals(c.getType()) ? ready(c) : c)
                .toList();
        if (!read.isEmpty()) {
          kept.setConditions(read);
        }
      }
      node.setStatus(kept);
    }
    return node;
  }

  private static boolean read(NodeCondition c) {
    return "Ready".equals(c.getType())
        || GpuFaultContract.RESET_CONDITION.equals(c.getType())
        || GpuFaultContract.FAULT_TYPES.contains(c.getType());
  }

  private static NodeCondition ready(NodeCondition c) {
    return new NodeConditionBuilder()
        .withType(c.getType())
        .withStatus(c.getStatus())
        .withReason(c.getReason())
        .withLastTransitionTime(c.getLastTransitionTime())
        .build();
  }

  /** An informer store that keeps slimmed Nodes. */
  public static TransformingItemStore<Node> store() {
    return new TransformingItemStore<>(NodeSlimming::slim);
  }
}

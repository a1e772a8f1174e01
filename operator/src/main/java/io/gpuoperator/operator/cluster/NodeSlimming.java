package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;

/**
 * Keeps cached Nodes small: the operator reads labels, taints and the container runtime, while a
 * real Node's status (image list, conditions, volumes) and managedFields are most of its size and
 * grow with the cluster. Two Node caches (node labels, policy facts) hold only what is read.
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
      node.setStatus(kept);
    }
    return node;
  }

  /** An informer store that keeps slimmed Nodes. */
  public static TransformingItemStore<Node> store() {
    return new TransformingItemStore<>(NodeSlimming::slim);
  }
}

package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;

/**
 * Every Node of the cluster from one watch, for the simulated kubelets' reads of their own Node
 * (the status heartbeat compares it with what it would post): one watch for the JVM instead of a
 * GET per node every lease interval (100 a second at 1,000 nodes). The Node authorizer lets a node
 * read only its own Node, so this watch runs with a reading credential of the simulator's; every
 * write stays on the node's own credential.
 */
public final class NodeCache implements AutoCloseable {
  private final SharedIndexInformer<Node> informer;

  private NodeCache(SharedIndexInformer<Node> informer) {
    this.informer = informer;
  }

  /**
   * Starts the watch with {@code reader} (allowed to list and watch Nodes) and waits for a list.
   */
  public static NodeCache start(KubernetesClient reader) {
    return new NodeCache(reader.nodes().inform());
  }

  /** The Node as last heard, null when it does not exist (or was not heard of yet). */
  public Node get(String name) {
    return informer.getStore().getByKey(name);
  }

  /** Every Node as last heard. */
  public List<Node> list() {
    return informer.getStore().list();
  }

  @Override
  public void close() {
    informer.close();
  }
}

package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;

/**
 * Every Node of the cluster from one watch, for the simulated kubelets' reads of their own Node
 * (the status heartbeat compares it with what it would post; admission checks its allocatable): one
 * watch for the JVM instead of a GET per node every lease interval (100 a second at 1,000 nodes).
 * The Node authorizer lets a node read only its own Node, so this watch runs with a reading
 * credential of the simulator's; every write stays on the node's own credential.
 */
public final class NodeCache implements AutoCloseable {
  /** Objects per page of an informer's list (client-go's reflectors use 500). */
  public static final long LIST_PAGE = 500;

  private final SharedIndexInformer<Node> informer;

  private NodeCache(SharedIndexInformer<Node> informer) {
    this.informer = informer;
  }

  /**
   * Starts the watch with {@code reader} (allowed to list and watch Nodes) and waits for a list.
   */
  public static NodeCache start(KubernetesClient reader) {
    // Listed in pages, as client-go's reflectors list: one list of every Node of a large cluster
    // can outlast the client's request timeout on a busy API server, and an informer whose list
    // keeps timing out never catches up.
    return new NodeCache(reader.nodes().withLimit(LIST_PAGE).inform());
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

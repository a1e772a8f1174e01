package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Informers;
import io.gpuoperator.api.NodeWatch;
import io.gpuoperator.sim.controlplane.StreamingInformer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Every Node of the cluster from one watch, for the simulated kubelets' reads of their own Node
 * (the status heartbeat compares it with what it would post; admission checks its allocatable): one
 * watch for the JVM instead of a GET per node every lease interval (100 a second at 1,000 nodes).
 * The Node authorizer lets a node read only its own Node, so this watch runs with a reading
 * credential of the simulator's; every write stays on the node's own credential. The in-process
 * agents hear of their Node from it too ({@link #watch}).
 */
public final class NodeCache implements NodeWatch, AutoCloseable {
  private final StreamingInformer<Node> informer;
  private final Map<String, List<Consumer<Node>>> listeners = new ConcurrentHashMap<>();

  private NodeCache(StreamingInformer<Node> informer) {
    this.informer = informer;
    informer.addEventHandler(Informers.onEach(this::tell));
  }

  private void tell(Node node) {
    List<Consumer<Node>> ls = listeners.get(node.getMetadata().getName());
    if (ls != null) {
      for (Consumer<Node> l : ls) {
        l.accept(node);
      }
    }
  }

  /**
   * Tells {@code onNode} of the Node now (when this cache has it) and of each change heard, on the
   * watch's thread: the in-process agents' Node watches ({@link NodeWatch}), from this one watch.
   */
  @Override
  public AutoCloseable watch(String nodeName, Consumer<Node> onNode) {
    listeners.computeIfAbsent(nodeName, k -> new CopyOnWriteArrayList<>()).add(onNode);
    Node now = get(nodeName);
    if (now != null) {
      onNode.accept(now);
    }
    return () -> {
      List<Consumer<Node>> ls = listeners.get(nodeName);
      if (ls != null) {
        ls.remove(onNode);
      }
    };
  }

  @Override
  public Node current(String nodeName) {
    return get(nodeName);
  }

  /**
   * Starts the watch with {@code reader} (allowed to list and watch Nodes) and waits for a list.
   */
  public static NodeCache start(KubernetesClient reader) {
    // Listed in pages (StreamingInformer), as client-go's reflectors list: one list of every Node
    // of a large cluster can outlast the client's request timeout on a busy API server, and an
    // informer whose list keeps timing out never catches up.
    StreamingInformer<Node> informer = new StreamingInformer<>(reader, Node.class, null, null);
    NodeCache cache = new NodeCache(informer);
    informer.start().join();
    return cache;
  }

  /** The Node as last heard, null when it does not exist (or was not heard of yet). */
  public Node get(String name) {
    return informer.get(name);
  }

  /** Every Node as last heard. */
  public List<Node> list() {
    return informer.list();
  }

  @Override
  public void close() {
    informer.close();
  }
}

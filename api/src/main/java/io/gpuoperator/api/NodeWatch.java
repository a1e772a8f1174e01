package io.gpuoperator.api;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/**
 * How a node agent hears about its own Node: the Node as it is now, then each change. On a real
 * node that is an informer on the one Node ({@link #informer}); the simulator hands its in-process
 * agents one watch of every Node it already keeps, so a thousand agents do not each receive,
 * decrypt and decode their Node's every change again.
 */
public interface NodeWatch {
  /**
   * Calls {@code onNode} with the Node (once it exists) and with each change of it, until the
   * result is closed; deletions are not reported. {@code onNode} runs on the watch's thread and
   * must return quickly.
   */
  AutoCloseable watch(String nodeName, Consumer<Node> onNode);

  /** The Node as this source knows it now, null when it does not exist. */
  Node current(String nodeName);

  /**
   * An informer per watched Node through {@code client}, which retries when its first list fails
   * ({@link Informers}); it does not wait for that list.
   */
  static NodeWatch informer(KubernetesClient client) {
    return new NodeWatch() {
      @Override
      public Node current(String nodeName) {
        return client.nodes().withName(nodeName).get();
      }

      @Override
      public AutoCloseable watch(String nodeName, Consumer<Node> onNode) {
        SharedIndexInformer<Node> informer =
            Informers.start(client.nodes().withName(nodeName), Informers.onEach(onNode), 0);
        return informer::close;
      }
    };
  }
}

package io.gpuoperator.sim.kubelet.deviceplugin;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.sim.kubelet.KubeletThreads;
import io.gpuoperator.sim.kubelet.SerialLane;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device-plugin resources on the Node's status, as the kubelet publishes them: capacity counts
 * every device a plugin listed, allocatable only the healthy ones, and a resource whose plugin went
 * away stays at zero. Written only when they changed, retried while a write fails, one write at a
 * time on the node's {@link SerialLane} over the pool every simulated node shares (most of the time
 * a node has nothing to write, and hundreds of nodes share a JVM).
 */
final class NodeResourceStatus {
  private static final Logger LOG = LoggerFactory.getLogger(NodeResourceStatus.class);
  private static final long RETRY_MILLIS = 1000;

  /** A resource's device counts. */
  record Count(int capacity, int allocatable) {}

  private final KubernetesClient client;
  private final String nodeName;
  private final Supplier<Map<String, Count>> counts;
  private final BooleanSupplier closing;
  private final SerialLane writer;

  /** Last written, as "c/resource" and "a/resource" to count; touched on the writer lane only. */
  private final Map<String, String> published = new HashMap<>();

  /**
   * @param client null: nothing is published
   * @param counts every registered resource's counts now
   * @param closing whether the node is shutting down (a failed write is then not retried)
   */
  NodeResourceStatus(
      KubernetesClient client,
      String nodeName,
      Supplier<Map<String, Count>> counts,
      BooleanSupplier closing) {
    this.client = client;
    this.nodeName = nodeName;
    this.counts = counts;
    this.closing = closing;
    this.writer = new SerialLane("kubelet-dm-status-" + nodeName, KubeletThreads.devices());
  }

  /** Patches capacity and allocatable of every known resource on the Node, when they changed. */
  void publish() {
    writer.execute(this::write);
  }

  void shutdown() {
    writer.close();
  }

  private void write() {
    if (client == null) {
      return;
    }
    Map<String, String> capacity = new TreeMap<>();
    Map<String, String> allocatable = new TreeMap<>();
    counts
        .get()
        .forEach(
            (r, c) -> {
              capacity.put(r, Integer.toString(c.capacity()));
              allocatable.put(r, Integer.toString(c.allocatable()));
            });
    Map<String, String> flat = new HashMap<>();
    capacity.forEach((r, v) -> flat.put("c/" + r, v));
    allocatable.forEach((r, v) -> flat.put("a/" + r, v));
    if (flat.equals(published)) {
      return;
    }
    String body =
        Serialization.asJson(
            Map.of("status", Map.of("capacity", capacity, "allocatable", allocatable)));
    try {
      client
          .nodes()
          .resource(PatchTarget.of(Node::new, null, nodeName))
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), body);
      published.clear();
      published.putAll(flat);
      LOG.info("node/{}: capacity {} allocatable {}", nodeName, capacity, allocatable);
    } catch (KubernetesClientException e) {
      if (closing.getAsBoolean()) {
        return; // shutting down: the node's status no longer matters
      }
      LOG.warn("node/{}: cannot patch status ({}); retrying", nodeName, e.getMessage());
      writer.schedule(this::write, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }
}

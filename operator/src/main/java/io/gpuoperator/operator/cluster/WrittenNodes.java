package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Nodes a controller's own patches returned, kept until the informer's cache catches up: a pass
 * that runs right after a write must act on what it wrote, not on the older cached copy (else it
 * would repeat a step, such as an eviction). The driver upgrade and remediation controllers share
 * it, and write their nodes through {@link #patch}, so that no write goes unremembered.
 */
public final class WrittenNodes {
  private final KubernetesClient client;
  private final Map<String, Node> written = new ConcurrentHashMap<>();

  public WrittenNodes(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Writes a JSON merge patch to the node {@code name} and keeps what the server returned (slimmed
   * as the cache keeps nodes); returns it.
   */
  public Node patch(String name, String mergePatch) {
    Node result =
        client
            .nodes()
            .resource(PatchTarget.of(Node::new, null, name))
            .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
    written.put(name, NodeSlimming.slim(result));
    return result;
  }

  /** The cached node, or the one our last write returned when the cache has not caught up. */
  public Node freshest(Node cached) {
    Node ours = written.get(cached.getMetadata().getName());
    if (ours == null) {
      return cached;
    }
    if (version(cached) >= version(ours)) {
      written.remove(cached.getMetadata().getName(), ours);
      return cached;
    }
    return ours;
  }

  /** Forgets the nodes not named (deleted, or no longer GPU nodes). */
  public void retainOnly(Collection<String> names) {
    written.keySet().retainAll(names);
  }

  private static long version(Node n) {
    try {
      return Long.parseLong(n.getMetadata().getResourceVersion());
    } catch (RuntimeException e) {
      return Long.MAX_VALUE;
    }
  }
}

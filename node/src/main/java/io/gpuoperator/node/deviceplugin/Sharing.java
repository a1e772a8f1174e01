package io.gpuoperator.node.deviceplugin;

import java.util.Map;
import java.util.TreeMap;

/**
 * The resolved {@code sharing} section: which resources are replicated and how.
 *
 * @param strategy time-slicing, MPS or none
 * @param renameByDefault advertise replicated resources as {@code <name>.shared}
 * @param failRequestsGreaterThanOne refuse Allocate of more than one replica
 * @param replicas replicas per resource name (only entries with at least 2)
 */
public record Sharing(
    SharingStrategy strategy,
    boolean renameByDefault,
    boolean failRequestsGreaterThanOne,
    Map<String, Integer> replicas) {
  /** No sharing. */
  public static final Sharing NONE = new Sharing(SharingStrategy.NONE, false, false, Map.of());

  public Sharing {
    replicas = Map.copyOf(new TreeMap<>(replicas));
  }

  /** Replicas of a resource: 1 when it is not shared. */
  public int replicasOf(String resource) {
    return replicas.getOrDefault(resource, 1);
  }
}

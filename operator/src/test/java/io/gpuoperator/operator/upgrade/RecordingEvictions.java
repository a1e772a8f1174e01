package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The eviction side of the node-action fakes of the upgrade and remediation tests: records every
 * eviction asked for; a PodDisruptionBudget refuses the {@link #blocked} pods, the others start
 * terminating at {@code now}.
 */
public abstract class RecordingEvictions implements NodeActions {
  public final List<String> evicted = new ArrayList<>();
  public final Set<String> blocked = new HashSet<>();
  private final Instant now;

  protected RecordingEvictions(Instant now) {
    this.now = now;
  }

  @Override
  public Eviction evict(Pod pod) {
    evicted.add(pod.getMetadata().getName());
    if (blocked.contains(pod.getMetadata().getName())) {
      return Eviction.BLOCKED;
    }
    pod.getMetadata().setDeletionTimestamp(now.toString());
    return Eviction.EVICTED;
  }
}

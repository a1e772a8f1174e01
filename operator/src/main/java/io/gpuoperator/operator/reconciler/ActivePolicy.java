package io.gpuoperator.operator.reconciler;

import io.gpuoperator.api.v1.ClusterPolicy;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * The rule for several ClusterPolicies: the one with the oldest creationTimestamp is active (ties
 * broken by name, alphabetically); the others are ignored. Policies being deleted do not count.
 */
public final class ActivePolicy {
  private static final Comparator<ClusterPolicy> ORDER =
      Comparator.comparing(ActivePolicy::created).thenComparing(p -> p.getMetadata().getName());

  private ActivePolicy() {}

  /** The active policy among all that exist, if any. */
  public static Optional<ClusterPolicy> of(Collection<ClusterPolicy> policies) {
    return policies.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).min(ORDER);
  }

  /** Whether {@code policy} is the active one among {@code policies} (matched by name). */
  public static boolean isActive(ClusterPolicy policy, Collection<ClusterPolicy> policies) {
    return of(policies)
        .map(a -> a.getMetadata().getName().equals(policy.getMetadata().getName()))
        .orElse(false);
  }

  private static OffsetDateTime created(ClusterPolicy p) {
    String ts = p.getMetadata().getCreationTimestamp();
    // Not yet persisted (never from the API server): sorts last.
    return ts == null ? OffsetDateTime.MAX : OffsetDateTime.parse(ts);
  }
}

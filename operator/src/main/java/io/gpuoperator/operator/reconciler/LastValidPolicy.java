package io.gpuoperator.operator.reconciler;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The newest valid generation of each policy: an invalid edit keeps the previous spec in force.
 * Each generation is validated once, however many nodes ask.
 */
public final class LastValidPolicy {
  private final Function<ClusterPolicy, List<Violation>> validator;
  private final Map<String, Entry> byUid = new ConcurrentHashMap<>();

  private record Entry(Long generation, ClusterPolicy lastValid) {}

  public LastValidPolicy(Function<ClusterPolicy, List<Violation>> validator) {
    this.validator = validator;
  }

  /** The policy if valid, else its last valid generation seen by this process, else empty. */
  public Optional<ClusterPolicy> of(ClusterPolicy policy) {
    Long generation = policy.getMetadata().getGeneration();
    Entry entry =
        byUid.compute(
            policy.getMetadata().getUid(),
            (uid, old) -> {
              if (old != null && Objects.equals(old.generation(), generation)) {
                return old;
              }
              boolean valid = validator.apply(policy).isEmpty();
              return new Entry(generation, valid ? policy : old == null ? null : old.lastValid());
            });
    return Optional.ofNullable(entry.lastValid());
  }
}

package io.gpuoperator.operator.upgrade;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one pass of the state machine decided for a node: either to move to another state, with the
 * node changes that go with it (all written in one merge patch), or to stay and look again later.
 *
 * @param to the next state; null to stay
 * @param labels node labels to set; a null value removes the label
 * @param annotations node annotations to set; a null value removes the annotation
 * @param unschedulable cordon (true) or uncordon (false); null leaves it
 * @param failure why the upgrade failed (recorded as an Event), or null
 * @param recheck when to look again while staying (null: on the next event)
 * @param waiting what the node waits for while staying, for status and logs
 */
public record Step(
    UpgradeState to,
    Map<String, String> labels,
    Map<String, String> annotations,
    Boolean unschedulable,
    String failure,
    Duration recheck,
    String waiting) {

  public Step {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
  }

  /** Nothing to do now; look again after {@code recheck} (null: on the next event). */
  public static Step stay(Duration recheck, String waiting) {
    return new Step(null, Map.of(), Map.of(), null, null, recheck, waiting);
  }

  /** Nothing to do until something changes. */
  public static Step idle() {
    return stay(null, null);
  }

  public static Builder to(UpgradeState state) {
    return new Builder(state);
  }

  public boolean moves() {
    return to != null;
  }

  /** Whether anything is written for this step. */
  public boolean writes() {
    return to != null || !labels.isEmpty() || !annotations.isEmpty() || unschedulable != null;
  }

  /** Collects a transition's node changes. */
  public static final class Builder extends NodeChangesBuilder<Builder> {
    private final UpgradeState to;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private String failure;

    private Builder(UpgradeState to) {
      this.to = to;
    }

    @Override
    protected Builder self() {
      return this;
    }

    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    public Builder labels(Map<String, String> all) {
      labels.putAll(all);
      return this;
    }

    public Builder failure(String reason) {
      failure = reason;
      return this;
    }

    public Step build() {
      return new Step(to, labels, annotations, unschedulable, failure, null, null);
    }
  }
}

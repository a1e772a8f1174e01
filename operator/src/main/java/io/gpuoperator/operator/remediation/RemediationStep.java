package io.gpuoperator.operator.remediation;

import io.gpuoperator.operator.upgrade.NodeChangesBuilder;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one look at a node decided: move to another state with the node changes that go with it (one
 * patch) and the Event that tells of it, or stay and look again later.
 *
 * @param to the next state; null to stay
 * @param annotations annotations to set; a null value removes one
 * @param unschedulable cordon (true), uncordon (false), or leave (null)
 * @param taint the taint's value to set, "" to remove it, null to leave it
 * @param reason the Event's reason (a step was taken), or null
 * @param message the Event's message
 * @param warning whether the Event is a warning
 * @param recheck when to look again while staying (null: on the next change)
 * @param waiting what the node waits for while staying, for logs and dry runs
 */
public record RemediationStep(
    RemediationState to,
    Map<String, String> annotations,
    Boolean unschedulable,
    String taint,
    String reason,
    String message,
    boolean warning,
    Duration recheck,
    String waiting) {

  public RemediationStep {
    annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
  }

  public static RemediationStep stay(Duration recheck, String waiting) {
    return new RemediationStep(null, Map.of(), null, null, null, null, false, recheck, waiting);
  }

  public static RemediationStep idle() {
    return stay(null, null);
  }

  public boolean moves() {
    return to != null;
  }

  public static Builder to(RemediationState state) {
    return new Builder(state);
  }

  /** Collects a transition. */
  public static final class Builder extends NodeChangesBuilder<Builder> {
    private final RemediationState to;
    private String taint;
    private String reason;
    private String message;
    private boolean warning;

    private Builder(RemediationState to) {
      this.to = to;
    }

    @Override
    protected Builder self() {
      return this;
    }

    public Builder taint(String value) {
      taint = value;
      return this;
    }

    public Builder event(String reason, String message) {
      this.reason = reason;
      this.message = message;
      return this;
    }

    public Builder warning(String reason, String message) {
      this.warning = true;
      return event(reason, message);
    }

    public RemediationStep build() {
      return new RemediationStep(
          to, annotations, unschedulable, taint, reason, message, warning, null, null);
    }
  }
}

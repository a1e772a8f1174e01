package io.gpuoperator.operator.upgrade;

import io.gpuoperator.operator.labels.Labels;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * A node as the driver upgrade sees it: its labels and annotations (where the upgrade keeps its
 * state), whether it is cordoned and Ready, its driver pod and whether the validator runs ready on
 * it. Immutable; {@link #with} gives the node after a write.
 *
 * @param driver the node's driver pod, null when none runs there
 * @param validatorPresent a validator pod exists on the node (terminating or not)
 * @param validatorReady a validator pod on the node is Running and Ready
 */
public record UpgradeNode(
    String name,
    Map<String, String> labels,
    Map<String, String> annotations,
    boolean unschedulable,
    boolean ready,
    DriverPod driver,
    boolean validatorPresent,
    boolean validatorReady) {

  public UpgradeNode {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
  }

  public UpgradeState state() {
    return UpgradeState.of(labels.get(UpgradeKeys.STATE));
  }

  /** The user keeps this node out of upgrades. */
  public boolean skip() {
    return Labels.TRUE.equals(labels.get(UpgradeKeys.SKIP));
  }

  public boolean requested() {
    return Labels.TRUE.equals(annotations.get(UpgradeKeys.REQUESTED));
  }

  public boolean restartOnly() {
    return Labels.TRUE.equals(annotations.get(UpgradeKeys.RESTART_ONLY));
  }

  /** Whether the validator is expected on this node (its deploy label is on, or paused by us). */
  public boolean validatorExpected() {
    String v = labels.get(Labels.deploy(UpgradeKeys.VALIDATOR_OPERAND));
    return Labels.TRUE.equals(v) || UpgradeKeys.PAUSED.equals(v);
  }

  /** The driver pod runs an older revision than its DaemonSet, or an upgrade was requested. */
  public boolean needsUpgrade() {
    return driver != null && (driver.outdated() || requested());
  }

  /** Epoch-seconds annotation as an instant, or null when absent or malformed. */
  public Instant time(String annotation) {
    String v = annotations.get(annotation);
    try {
      return v == null ? null : Instant.ofEpochSecond(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** This node after a step's writes (null values remove a key). */
  public UpgradeNode with(Step step) {
    Map<String, String> l = apply(labels, step.labels());
    Map<String, String> a = apply(annotations, step.annotations());
    if (step.to() != null) {
      l.put(UpgradeKeys.STATE, step.to().label());
    }
    return new UpgradeNode(
        name,
        l,
        a,
        step.unschedulable() == null ? unschedulable : step.unschedulable(),
        ready,
        driver,
        validatorPresent,
        validatorReady);
  }

  private static Map<String, String> apply(Map<String, String> base, Map<String, String> changes) {
    Map<String, String> out = new HashMap<>(base);
    changes.forEach(
        (k, v) -> {
          if (v == null) {
            out.remove(k);
          } else {
            out.put(k, v);
          }
        });
    return out;
  }

  @Override
  public String toString() {
    return name + "[" + state().label() + "]";
  }
}

package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import java.time.Duration;
import java.util.Map;

/**
 * A driver's upgrade policy with every default filled in (the original's chart defaults), ready for
 * the state machine. Pure.
 *
 * @param maxParallel most nodes in progress at once; 0 = no limit
 * @param maxUnavailable most unavailable nodes, a count or a percentage ("25%")
 * @param waitForJobsTimeout zero waits without limit
 * @param canarySelector labels of the canary nodes (empty: by {@code canaryCount})
 * @param canaryCount canary nodes (0: none)
 * @param waveSize nodes per wave, a count or a percentage; null: one wave
 * @param maxFailedNodes halt when more nodes failed; -1: never halt
 */
public record UpgradeSettings(
    boolean autoUpgrade,
    int maxParallel,
    IntOrString maxUnavailable,
    String waitForJobsSelector,
    Duration waitForJobsTimeout,
    boolean forceDeletion,
    boolean deleteEmptyDir,
    Duration podDeletionTimeout,
    boolean drain,
    boolean drainForce,
    String drainSelector,
    boolean drainDeleteEmptyDir,
    Duration drainTimeout,
    Duration validationTimeout,
    Map<String, String> canarySelector,
    int canaryCount,
    IntOrString waveSize,
    int maxFailedNodes) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);
  public static final Duration DEFAULT_VALIDATION_TIMEOUT = Duration.ofSeconds(600);
  public static final IntOrString DEFAULT_MAX_UNAVAILABLE = new IntOrString("25%");

  public UpgradeSettings {
    canarySelector = canarySelector == null ? Map.of() : Map.copyOf(canarySelector);
  }

  /**
   * The settings for the driver a ClusterPolicy deploys: off when it deploys none (driver disabled,
   * NVIDIADriver resources in charge) or runs sandbox workloads, as in the original.
   */
  public static UpgradeSettings of(ClusterPolicy policy) {
    ClusterPolicySpec spec = policy.getSpec();
    DriverSpec d = spec == null ? null : spec.driver;
    boolean sandbox =
        spec != null
            && spec.sandboxWorkloads != null
            && Boolean.TRUE.equals(spec.sandboxWorkloads.enabled);
    boolean deployed =
        d == null || (d.isEnabled(true) && !Boolean.TRUE.equals(d.useNvidiaDriverCRD));
    if (!deployed || sandbox) {
      UpgradePolicySpec off = new UpgradePolicySpec();
      off.autoUpgrade = false;
      return ofClusterPolicy(off);
    }
    return ofClusterPolicy(d == null ? null : d.upgradePolicy);
  }

  /**
   * Settings of a ClusterPolicy's {@code driver.upgradePolicy}: auto-upgrade is off unless set (the
   * original's Go default; its Helm chart sets it).
   */
  public static UpgradeSettings ofClusterPolicy(UpgradePolicySpec spec) {
    return of(spec, false);
  }

  /** Settings of an NVIDIADriver's upgradePolicy: auto-upgrade defaults to on there. */
  public static UpgradeSettings ofNvidiaDriver(UpgradePolicySpec spec) {
    return of(spec, true);
  }

  private static UpgradeSettings of(UpgradePolicySpec spec, boolean autoByDefault) {
    UpgradePolicySpec s = spec == null ? new UpgradePolicySpec() : spec;
    boolean auto = s.autoUpgrade == null ? autoByDefault : s.autoUpgrade;
    var wait = s.waitForCompletion;
    var del = s.podDeletion;
    var drain = s.drain;
    var rollout = s.rollout;
    var canary = rollout == null ? null : rollout.canary;
    return new UpgradeSettings(
        auto,
        s.maxParallelUpgrades == null ? 1 : s.maxParallelUpgrades,
        s.maxUnavailable == null ? DEFAULT_MAX_UNAVAILABLE : s.maxUnavailable,
        wait == null || blank(wait.podSelector) ? null : wait.podSelector.trim(),
        seconds(wait == null ? null : wait.timeoutSeconds, Duration.ZERO),
        del != null && Boolean.TRUE.equals(del.force),
        del != null && Boolean.TRUE.equals(del.deleteEmptyDir),
        seconds(del == null ? null : del.timeoutSeconds, DEFAULT_TIMEOUT),
        drain != null && Boolean.TRUE.equals(drain.enable),
        drain != null && Boolean.TRUE.equals(drain.force),
        drain == null || blank(drain.podSelector) ? null : drain.podSelector.trim(),
        drain != null && Boolean.TRUE.equals(drain.deleteEmptyDir),
        seconds(drain == null ? null : drain.timeoutSeconds, DEFAULT_TIMEOUT),
        seconds(s.validationTimeoutSeconds, DEFAULT_VALIDATION_TIMEOUT),
        canary == null ? null : canary.nodeSelector,
        canary == null
            ? 0
            : canary.count != null
                ? canary.count
                : blank(canary.nodeSelector) ? 1 : Integer.MAX_VALUE,
        rollout == null ? null : rollout.waveSize,
        rollout == null || rollout.maxFailedNodes == null ? -1 : rollout.maxFailedNodes);
  }

  /**
   * An absolute number of nodes from a count or a percentage of {@code total}, rounded up as the
   * original does; a malformed value is an error naming it.
   */
  public static int scaled(IntOrString value, int total, String field) {
    if (value == null) {
      return total;
    }
    if (value.getIntVal() != null) {
      return value.getIntVal();
    }
    String text = value.getStrVal() == null ? "" : value.getStrVal().trim();
    try {
      if (text.endsWith("%")) {
        int percent = Integer.parseInt(text.substring(0, text.length() - 1).trim());
        if (percent < 0) {
          throw new NumberFormatException();
        }
        return (int) Math.ceil(total * percent / 100.0);
      }
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          field + ": '" + text + "' is neither a number of nodes nor a percentage such as 25%");
    }
  }

  private static Duration seconds(Integer value, Duration fallback) {
    return value == null ? fallback : Duration.ofSeconds(value);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static boolean blank(Map<String, String> m) {
    return m == null || m.isEmpty();
  }
}

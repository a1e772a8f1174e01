package io.gpuoperator.operator.remediation;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.operator.upgrade.UpgradeSettings;
import java.time.Duration;

/**
 * The ClusterPolicy's {@code spec.remediation} with its defaults filled in.
 *
 * @param enabled act on the fault conditions at all
 * @param dryRun only report (Events, status)
 * @param maxConcurrent most GPU nodes in remediation at once, a count or a percentage
 * @param maxFaultyNodes circuit breaker: more faulty GPU nodes than this stops new remediation
 * @param coolDown how long a node that came back is left alone
 * @param resetTimeout how long the node's agent has to answer a GPU reset before a reboot is asked
 */
public record RemediationSettings(
    boolean enabled,
    boolean dryRun,
    IntOrString maxConcurrent,
    IntOrString maxFaultyNodes,
    Duration coolDown,
    Duration resetTimeout) {
  /** Long enough for nvidia-smi -r on a busy 8-GPU node (NvmlBackend gives one reset 120 s). */
  public static final Duration RESET_TIMEOUT = Duration.ofSeconds(300);

  public static final RemediationSettings OFF = of((RemediationSpec) null);

  public static RemediationSettings of(ClusterPolicy policy) {
    return of(policy == null || policy.getSpec() == null ? null : policy.getSpec().remediation);
  }

  public static RemediationSettings of(RemediationSpec r) {
    RemediationSpec s = r == null ? new RemediationSpec() : r;
    return new RemediationSettings(
        Boolean.TRUE.equals(s.enabled),
        Boolean.TRUE.equals(s.dryRun),
        s.maxConcurrent == null
            ? new IntOrString(Integer.parseInt(RemediationSpec.DEFAULT_MAX_CONCURRENT))
            : s.maxConcurrent,
        s.maxFaultyNodes == null
            ? new IntOrString(RemediationSpec.DEFAULT_MAX_FAULTY_NODES)
            : s.maxFaultyNodes,
        Duration.ofSeconds(
            s.coolDownSeconds == null
                ? RemediationSpec.DEFAULT_COOL_DOWN_SECONDS
                : s.coolDownSeconds),
        RESET_TIMEOUT);
  }

  /** maxConcurrent for this many GPU nodes (a percentage rounded up, at least 1). */
  public int concurrent(int gpuNodes) {
    return Math.max(
        1, UpgradeSettings.scaled(maxConcurrent, gpuNodes, "spec.remediation.maxConcurrent"));
  }

  /** maxFaultyNodes for this many GPU nodes (a percentage rounded up, at least 1). */
  public int faultyLimit(int gpuNodes) {
    return Math.max(
        1, UpgradeSettings.scaled(maxFaultyNodes, gpuNodes, "spec.remediation.maxFaultyNodes"));
  }
}

package io.gpuoperator.operator.config;

import io.gpuoperator.api.OperandImages;
import java.time.Duration;
import java.util.Map;

/**
 * The operator's configuration, from typed environment variables. Every variable is declared once
 * in {@link Env}; tests pass a map instead of the process environment.
 *
 * @param namespace OPERATOR_NAMESPACE, where operands run
 * @param images default image per operand (keys as in {@link OperandImages#OPERANDS}), after env
 *     overrides such as DRIVER_IMAGE
 * @param reconcileBackoffMax RECONCILE_BACKOFF_MAX: a failed reconcile is retried without end,
 *     after 1 s, 2 s, 4 s ... up to this interval
 * @param resyncPeriod RESYNC_PERIOD: every policy and node is reconciled at least this often, even
 *     without an event (a pass that finds nothing to change writes nothing)
 */
public record OperatorConfig(
    String namespace,
    Map<String, String> images,
    int metricsPort,
    int healthPort,
    boolean leaderElection,
    String leaderElectionNamespace,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod,
    Duration reconcileBackoffMax,
    Duration resyncPeriod) {

  /** Reads the configuration; a malformed value names the variable and what was expected. */
  public static OperatorConfig fromEnv(Map<String, String> env) {
    String namespace = Env.OPERATOR_NAMESPACE.get(env);
    Map<String, String> images = new java.util.LinkedHashMap<>(OperandImages.all());
    for (Env image : Env.IMAGES.keySet()) {
      String value = image.get(env);
      if (value != null && !value.isBlank()) {
        images.put(Env.IMAGES.get(image), value);
      }
    }
    return new OperatorConfig(
        namespace,
        Map.copyOf(images),
        Env.METRICS_PORT.getInt(env),
        Env.HEALTH_PORT.getInt(env),
        Env.LEADER_ELECT.getBoolean(env),
        Env.LEADER_ELECT_NAMESPACE.get(env) == null
            ? namespace
            : Env.LEADER_ELECT_NAMESPACE.get(env),
        Env.LEASE_DURATION.getDuration(env),
        Env.RENEW_DEADLINE.getDuration(env),
        Env.RETRY_PERIOD.getDuration(env),
        positive(Env.RECONCILE_BACKOFF_MAX, env),
        positive(Env.RESYNC_PERIOD, env));
  }

  private static Duration positive(Env var, Map<String, String> env) {
    Duration d = var.getDuration(env);
    if (d.isZero()) {
      throw new IllegalArgumentException(var.name() + "=" + var.get(env) + ": must be above 0");
    }
    return d;
  }

  /** The same configuration in another operator namespace (plan's --namespace). */
  public OperatorConfig withNamespace(String ns) {
    return new OperatorConfig(
        ns,
        images,
        metricsPort,
        healthPort,
        leaderElection,
        leaderElectionNamespace,
        leaseDuration,
        renewDeadline,
        retryPeriod,
        reconcileBackoffMax,
        resyncPeriod);
  }

  /** The image for an operand after env overrides. */
  public String image(String operand) {
    return images.get(operand);
  }
}

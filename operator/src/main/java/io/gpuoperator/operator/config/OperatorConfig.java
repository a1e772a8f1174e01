package io.gpuoperator.operator.config;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;

/**
 * The operator's configuration, from typed environment variables. Every variable is declared once
 * in {@link Env}; tests pass a map instead of the process environment.
 *
 * @param namespace OPERATOR_NAMESPACE, where operands run
 * @param images the operator's image overrides per operand (keys as the operand names), from env
 *     such as DRIVER_IMAGE; an operand without one gets its default (our image where this binary
 *     has its agent, else NVIDIA's, see {@code Operands#defaultImage})
 * @param reconcileBackoffMax RECONCILE_BACKOFF_MAX: a failed reconcile is retried without end,
 *     after 1 s, 2 s, 4 s ... up to this interval
 * @param resyncPeriod RESYNC_PERIOD: every policy and node is reconciled at least this often, even
 *     without an event (a pass that finds nothing to change writes nothing)
 * @param settleWindow DAEMONSET_SETTLE_WINDOW: an operand DaemonSet that changes again within this
 *     time of its last write waits for the rest of it (zero: written at once)
 * @param agents the subcommands of this binary ({@code device-plugin}, {@code validator} ...):
 *     which operands this project's image can run. Empty: none, every operand runs NVIDIA's image.
 * @param nodeAgents NODE_AGENTS: our long-running node agents share one {@code nvidia-node-agents}
 *     DaemonSet (one JVM per node, {@code gpu-operator node-agents}) instead of one DaemonSet each
 * @param simulatedHardwareDir SIMULATED_HARDWARE_DIR: a host folder holding each node's {@code
 *     node-profile.yaml}; our agents then use simulated GPUs instead of NVML. Null: NVML
 * @param openShift PLATFORM_OPENSHIFT (the chart's {@code platform.openshift}): render for
 *     OpenShift even where discovery would not say so; the operator also detects it itself ({@link
 *     io.gpuoperator.operator.cluster.OpenShift})
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
    Duration resyncPeriod,
    Duration settleWindow,
    Set<String> agents,
    boolean nodeAgents,
    String simulatedHardwareDir,
    boolean openShift) {

  public OperatorConfig {
    images = images == null ? Map.of() : Map.copyOf(images);
    agents = agents == null ? Set.of() : Set.copyOf(agents);
  }

  /** Reads the configuration; a malformed value names the variable and what was expected. */
  public static OperatorConfig fromEnv(Map<String, String> env) {
    String namespace = Env.OPERATOR_NAMESPACE.get(env);
    Map<String, String> images = new java.util.LinkedHashMap<>();
    for (Env image : Env.IMAGES.keySet()) {
      String value = image.get(env);
      if (value != null && !value.isBlank()) {
        images.put(Env.IMAGES.get(image), value);
      }
    }
    return new OperatorConfig(
        namespace,
        images,
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
        positive(Env.RESYNC_PERIOD, env),
        Env.DAEMONSET_SETTLE_WINDOW.getDuration(env),
        Set.of(),
        Env.NODE_AGENTS.getBoolean(env),
        Env.SIMULATED_HARDWARE_DIR.get(env),
        Env.PLATFORM_OPENSHIFT.getBoolean(env));
  }

  private static Duration positive(Env var, Map<String, String> env) {
    Duration d = var.getDuration(env);
    if (d.isZero()) {
      throw new IllegalArgumentException(var.name() + "=" + var.get(env) + ": must be above 0");
    }
    return d;
  }

  /** The operator's image override for an operand (its {@code *_IMAGE} env), or null. */
  public String image(String operand) {
    return images.get(operand);
  }

  /**
   * The subcommands of the binary a command runs in (its root command's), which name the agents
   * this project's image has: the one source of that fact.
   */
  public static Set<String> subcommandsOf(CommandLine.Model.CommandSpec spec) {
    return spec == null ? Set.of() : Set.copyOf(spec.root().subcommands().keySet());
  }

  /** The same configuration for a binary with these subcommands (agents). */
  public OperatorConfig withAgents(Set<String> subcommands) {
    return copy(namespace, subcommands, nodeAgents);
  }

  /** The same configuration with another operator namespace. */
  public OperatorConfig withNamespace(String ns) {
    return copy(ns, agents, nodeAgents);
  }

  /** The same configuration with node-agents mode on or off. */
  public OperatorConfig withNodeAgents(boolean on) {
    return copy(namespace, agents, on);
  }

  /** The same configuration on OpenShift (true: discovered or set) or not. */
  public OperatorConfig withOpenShift(boolean on) {
    return copy(namespace, agents, nodeAgents, on);
  }

  private OperatorConfig copy(String namespace, Set<String> agents, boolean nodeAgents) {
    return copy(namespace, agents, nodeAgents, openShift);
  }

  /** A copy that differs only in what callers change; the rest is as resolved at start. */
  private OperatorConfig copy(
      String namespace, Set<String> agents, boolean nodeAgents, boolean openShift) {
    return new OperatorConfig(
        namespace,
        images,
        metricsPort,
        healthPort,
        leaderElection,
        leaderElectionNamespace,
        leaseDuration,
        renewDeadline,
        retryPeriod,
        reconcileBackoffMax,
        resyncPeriod,
        settleWindow,
        agents,
        nodeAgents,
        simulatedHardwareDir,
        openShift);
  }
}

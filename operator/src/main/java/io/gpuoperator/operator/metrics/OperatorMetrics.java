package io.gpuoperator.operator.metrics;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;

/**
 * The operator's Prometheus metrics: the original's (controllers/operator_metrics.go, same names
 * and meanings), the JVM's, and JOSDK's reconcile metrics ({@link ReconcileMetrics}). One registry
 * per operator instance (two instances can share a JVM in tests); served by the Prometheus client's
 * HTTP exporter.
 *
 * <p>As in the original, a pass counts in {@code gpu_operator_reconciliation_total}; one that does
 * not end ready (operands not ready, an invalid policy, an API error) also counts in {@code
 * gpu_operator_reconciliation_failed_total}; only a ready pass moves {@code
 * gpu_operator_reconciliation_last_success_ts_seconds}.
 */
public final class OperatorMetrics {
  /** Values of gpu_operator_reconciliation_status, as the original's. */
  public static final int STATUS_SUCCESS = 1;

  public static final int STATUS_NOT_READY = 0;
  public static final int STATUS_CLUSTER_POLICY_UNAVAILABLE = -1;
  public static final int STATUS_FAILED = -2;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter reconciliations;
  private final Counter failures;
  private final Gauge lastSuccess;
  private final Gauge status;
  private final Gauge nfdLabels;
  private final Gauge autoUpgrade;
  private final Gauge upgradesInProgress;
  private final Gauge upgradesDone;
  private final Gauge upgradesFailed;
  private final Gauge upgradesPending;
  private final Gauge upgradesAvailable;
  private final Gauge remediationEnabled;
  private final Gauge remediationNodes;
  private final Gauge remediationBreaker;
  private final Counter remediationActions;
  private final ReconcileMetrics josdk;
  private volatile double gpuNodes;

  public OperatorMetrics() {
    reconciliations =
        Counter.builder()
            .name("gpu_operator_reconciliation_total")
            .help("Total number of ClusterPolicy reconciliations")
            .register(registry);
    failures =
        Counter.builder()
            .name("gpu_operator_reconciliation_failed_total")
            .help("Number of ClusterPolicy reconciliations that did not end ready")
            .register(registry);
    lastSuccess =
        gauge(
            "gpu_operator_reconciliation_last_success_ts_seconds",
            "Timestamp of the last ClusterPolicy reconciliation that ended ready");
    status =
        gauge(
            "gpu_operator_reconciliation_status",
            "Status of the last ClusterPolicy reconciliation: 1 ready, 0 not ready,"
                + " -1 no ClusterPolicy, -2 failed");
    nfdLabels =
        gauge(
            "gpu_operator_reconciliation_has_nfd_labels",
            "1 if NFD labels were found on the cluster's nodes");
    autoUpgrade =
        gauge("gpu_operator_driver_auto_upgrade_enabled", "1 if driver auto-upgrade is enabled");
    upgradesInProgress =
        gauge("gpu_operator_nodes_upgrades_in_progress", "Nodes between cordon and uncordon");
    upgradesDone = gauge("gpu_operator_nodes_upgrades_done", "Nodes in upgrade-done");
    upgradesFailed = gauge("gpu_operator_nodes_upgrades_failed", "Nodes in upgrade-failed");
    upgradesPending = gauge("gpu_operator_nodes_upgrades_pending", "Nodes in upgrade-required");
    upgradesAvailable =
        gauge("gpu_operator_nodes_upgrades_available", "Nodes allowed to start upgrading now");
    remediationEnabled =
        gauge("gpu_operator_remediation_enabled", "1 if GPU fault remediation is enabled");
    remediationNodes =
        Gauge.builder()
            .name("gpu_operator_remediation_nodes")
            .help("GPU nodes per GPU fault remediation state (label state)")
            .labelNames("state")
            .register(registry);
    remediationBreaker =
        gauge(
            "gpu_operator_remediation_circuit_breaker_open",
            "1 while more GPU nodes are faulty than maxFaultyNodes allows");
    remediationActions =
        Counter.builder()
            .name("gpu_operator_remediation_actions_total")
            .help("GPU fault remediation steps taken, per fault condition type and step")
            .labelNames("fault", "action")
            .register(registry);
    // The original's gauge gpu_operator_gpu_nodes_total has a name the client library refuses
    // for gauges (it reserves _total for counters); a counter snapshot of base name
    // gpu_operator_gpu_nodes is exposed under exactly that name, so dashboards and alerts made
    // for the original keep working. Its value is the current count and may go down.
    registry.register(
        () ->
            CounterSnapshot.builder()
                .name("gpu_operator_gpu_nodes")
                .help("Number of nodes with NVIDIA GPUs")
                .dataPoint(
                    CounterSnapshot.CounterDataPointSnapshot.builder().value(gpuNodes).build())
                .build());
    status.set(STATUS_CLUSTER_POLICY_UNAVAILABLE);
    JvmMetrics.builder().register(registry);
    josdk = new ReconcileMetrics(registry);
  }

  private Gauge gauge(String name, String help) {
    return Gauge.builder().name(name).help(help).register(registry);
  }

  /** Records the driver upgrade's progress (the original's upgrade metrics). */
  public void upgrades(
      boolean enabled, int inProgress, int done, int failed, int pending, int available) {
    autoUpgrade.set(enabled ? 1 : 0);
    upgradesInProgress.set(inProgress);
    upgradesDone.set(done);
    upgradesFailed.set(failed);
    upgradesPending.set(pending);
    upgradesAvailable.set(available);
  }

  /**
   * Records a remediation pass: the nodes per state (every state, 0 where none) and the breaker.
   */
  public void remediation(
      boolean enabled,
      java.util.Map<io.gpuoperator.operator.remediation.RemediationState, Integer> states,
      boolean breakerOpen) {
    remediationEnabled.set(enabled ? 1 : 0);
    for (var s : io.gpuoperator.operator.remediation.RemediationState.values()) {
      if (s != io.gpuoperator.operator.remediation.RemediationState.NONE) {
        remediationNodes.labelValues(s.label()).set(states.getOrDefault(s, 0));
      }
    }
    remediationBreaker.set(breakerOpen ? 1 : 0);
  }

  /** Counts one remediation step on a node with this fault (condition type) into this state. */
  public void remediationAction(String fault, String action) {
    remediationActions.labelValues(fault, action).inc();
  }

  /** How many remediation steps into {@code action} were counted for {@code fault}. */
  public double remediationActions(String fault, String action) {
    return remediationActions.labelValues(fault, action).get();
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** The JOSDK hook that records every controller's reconciles in this registry. */
  public Metrics josdk() {
    return josdk;
  }

  /** How many ClusterPolicy reconciliations ran (for tests and logs). */
  public long reconciliations() {
    return (long) reconciliations.get();
  }

  /** How many did not end ready. */
  public long failures() {
    return (long) failures.get();
  }

  /** The current GPU node count as last reconciled. */
  public double gpuNodes() {
    return gpuNodes;
  }

  /** The last ready pass, in seconds since the epoch (0: none yet). */
  public double lastSuccessSeconds() {
    return lastSuccess.get();
  }

  /**
   * Records a pass that ran to its end: {@link #STATUS_SUCCESS} when the policy is ready, {@link
   * #STATUS_NOT_READY} otherwise (operands not ready, or an invalid policy).
   */
  public void reconciled(int statusValue, int gpuNodeCount, boolean nfd) {
    reconciliations.inc();
    status.set(statusValue);
    gpuNodes = gpuNodeCount;
    nfdLabels.set(nfd ? 1 : 0);
    if (statusValue == STATUS_SUCCESS) {
      lastSuccess.set(System.currentTimeMillis() / 1000.0);
    } else {
      failures.inc();
    }
  }

  /** Records a pass that failed (an API error; retried). */
  public void failed() {
    reconciliations.inc();
    failures.inc();
    status.set(STATUS_FAILED);
  }
}

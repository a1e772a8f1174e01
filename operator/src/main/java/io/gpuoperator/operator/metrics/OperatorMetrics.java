package io.gpuoperator.operator.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The operator's Prometheus metrics, named as the original's controllers/operator_metrics.go. One
 * registry per operator instance (two instances can share a JVM in tests).
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
  private volatile double gpuNodes;
  private final Gauge status;
  private final Gauge nfdLabels;
  private final Gauge autoUpgrade;
  private final Gauge upgradesInProgress;
  private final Gauge upgradesDone;
  private final Gauge upgradesFailed;
  private final Gauge upgradesPending;
  private final Gauge upgradesAvailable;

  public OperatorMetrics() {
    reconciliations =
        Counter.builder()
            .name("gpu_operator_reconciliation_total")
            .help("Total number of ClusterPolicy reconciliations")
            .register(registry);
    failures =
        Counter.builder()
            .name("gpu_operator_reconciliation_failed_total")
            .help("Number of failed ClusterPolicy reconciliations")
            .register(registry);
    lastSuccess =
        Gauge.builder()
            .name("gpu_operator_reconciliation_last_success_ts_seconds")
            .help("Timestamp of the last successful ClusterPolicy reconciliation")
            .register(registry);
    status =
        Gauge.builder()
            .name("gpu_operator_reconciliation_status")
            .help(
                "Status of the last ClusterPolicy reconciliation: 1 ready, 0 not ready,"
                    + " -1 no ClusterPolicy, -2 failed")
            .register(registry);
    nfdLabels =
        Gauge.builder()
            .name("gpu_operator_reconciliation_has_nfd_labels")
            .help("1 if NFD labels were found on the cluster's nodes")
            .register(registry);
    autoUpgrade =
        gauge("gpu_operator_driver_auto_upgrade_enabled", "1 if driver auto-upgrade is enabled");
    upgradesInProgress =
        gauge("gpu_operator_nodes_upgrades_in_progress", "Nodes between cordon and uncordon");
    upgradesDone = gauge("gpu_operator_nodes_upgrades_done", "Nodes in upgrade-done");
    upgradesFailed = gauge("gpu_operator_nodes_upgrades_failed", "Nodes in upgrade-failed");
    upgradesPending = gauge("gpu_operator_nodes_upgrades_pending", "Nodes in upgrade-required");
    upgradesAvailable =
        gauge("gpu_operator_nodes_upgrades_available", "Nodes allowed to start upgrading now");
    status.set(STATUS_CLUSTER_POLICY_UNAVAILABLE);
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

  public PrometheusRegistry registry() {
    return registry;
  }

  /**
   * Writes every metric in the Prometheus text format. gpu_operator_gpu_nodes_total is a gauge
   * whose name the client library refuses (it reserves _total for counters); it is written here by
   * hand so dashboards and alerts made for the original keep working.
   */
  public void writeTo(OutputStream out) throws IOException {
    new PrometheusTextFormatWriter(false).write(out, registry.scrape());
    String gauge =
        "# HELP gpu_operator_gpu_nodes_total Number of nodes with NVIDIA GPUs\n"
            + "# TYPE gpu_operator_gpu_nodes_total gauge\n"
            + "gpu_operator_gpu_nodes_total "
            + gpuNodes
            + "\n";
    out.write(gauge.getBytes(StandardCharsets.UTF_8));
  }

  /** How many ClusterPolicy reconciliations ran (for tests and logs). */
  public long reconciliations() {
    return (long) reconciliations.get();
  }

  /** The current GPU node count as last reconciled. */
  public double gpuNodes() {
    return gpuNodes;
  }

  /** Records one reconciliation's outcome. */
  public void reconciled(int statusValue, int gpuNodeCount, boolean nfd) {
    reconciliations.inc();
    status.set(statusValue);
    gpuNodes = gpuNodeCount;
    nfdLabels.set(nfd ? 1 : 0);
    if (statusValue == STATUS_SUCCESS || statusValue == STATUS_NOT_READY) {
      lastSuccess.set(System.currentTimeMillis() / 1000.0);
    }
  }

  /** Records a failed reconciliation (API error; retried). */
  public void failed() {
    reconciliations.inc();
    failures.inc();
    status.set(STATUS_FAILED);
  }
}

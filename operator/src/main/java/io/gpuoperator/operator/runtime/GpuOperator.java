package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.cli.Failures;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.metrics.OperatorMetrics;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.reconciler.ClusterPolicyReconciler;
import io.gpuoperator.operator.reconciler.ComputeDomainReconciler;
import io.gpuoperator.operator.reconciler.DriverUpgradeReconciler;
import io.gpuoperator.operator.reconciler.GpuClusterReconciler;
import io.gpuoperator.operator.reconciler.LastValidPolicy;
import io.gpuoperator.operator.reconciler.NodeLabelPlanner;
import io.gpuoperator.operator.reconciler.NodeLabelReconciler;
import io.gpuoperator.operator.reconciler.NvidiaDriverReconciler;
import io.gpuoperator.operator.reconciler.NvidiaDriverUpgradeReconciler;
import io.gpuoperator.operator.reconciler.PolicyRenderer;
import io.gpuoperator.operator.reconciler.ReconcilerKeys;
import io.gpuoperator.operator.reconciler.RemediationReconciler;
import io.gpuoperator.operator.reconciler.SharedNodes;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator process: the ClusterPolicy, driver-upgrade and node-label controllers on JOSDK,
 * leader election on a Lease, Prometheus metrics and health endpoints. Several instances may run
 * against one cluster; only the leader starts its controllers and reconciles, the others wait on
 * the Lease and take over when it expires (as controller-runtime's controllers, which the original
 * starts only once it leads).
 */
public final class GpuOperator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GpuOperator.class);
  private static final Duration CRD_RETRY = Duration.ofSeconds(10);

  /**
   * How an instance is wired; tests pass their own renderer, identity and exit behaviour.
   *
   * @param metricsHost the address /metrics binds (from --metrics-bind-address)
   * @param healthHost the address /healthz and /readyz bind (from --health-probe-bind-address)
   */
  public record Options(
      String identity,
      String metricsHost,
      String healthHost,
      boolean exitOnLostLease,
      int nodeWorkers) {
    /**
     * Reconcile workers of the operator process: 8 labelled 1,000 nodes about as fast as 16 and 32
     * did (the API server is the limit), with 8 and 24 threads fewer (BENCHMARKS.md "Operator
     * footprint").
     */
    public static final int NODE_WORKERS = 8;

    public static Options defaults(String identity) {
      return new Options(identity, "0.0.0.0", "0.0.0.0", true, NODE_WORKERS);
    }

    /** Both servers on one host (tests: 127.0.0.1). */
    public static Options on(String host, String identity, boolean exitOnLostLease, int workers) {
      return new Options(identity, host, host, exitOnLostLease, workers);
    }
  }

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final Options options;
  private final OperatorMetrics metrics = new OperatorMetrics();
  private final Operator operator;
  private final AtomicBoolean leader = new AtomicBoolean();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean electing = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final java.util.concurrent.CompletableFuture<Void> leaseLost =
      new java.util.concurrent.CompletableFuture<>();

  /** Why the controllers do not run yet (CRDs older than this build and not upgradable). */
  private final java.util.concurrent.atomic.AtomicReference<String> crdProblem =
      new java.util.concurrent.atomic.AtomicReference<>();

  /** The Lease's election; null without leader election. */
  private final LeaseElection election;

  private Thread crdRetry;
  private HttpEndpoints metricsServer;
  private HttpEndpoints healthServer;

  public GpuOperator(
      KubernetesClient client,
      OperatorConfig config,
      PolicyRenderer renderer,
      NodeLabelPlanner planner,
      Options options) {
    this.client = client;
    this.config = config;
    this.options = options;
    this.operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .checkingCRDAndValidateLocalModel(false)
                  .withConcurrentReconciliationThreads(options.nodeWorkers())
                  // JOSDK's default is a fixed pool that keeps every worker forever.
                  .withExecutorService(ThreadPools.bounded("reconciler", options.nodeWorkers()))
                  .withMetrics(metrics.josdk())
                  .withUseSSAToPatchPrimaryResource(false);
            });
    JosdkStartPool.install(operator);
    String serverVersion;
    try {
      serverVersion = client.getKubernetesVersion().getGitVersion();
    } catch (KubernetesClientException e) {
      // The first request: an unreachable or refusing server is said once, naming it.
      throw new EnvironmentException(
          "cannot reach the API server at "
              + client.getMasterUrl()
              + ": "
              + Failures.clusterProblem(e)
              + " (check --kubeconfig and that the cluster answers)",
          e);
    }
    KubernetesVersion.unsupportedReason(serverVersion)
        .ifPresent(reason -> LOG.error("{}; every ClusterPolicy will report it", reason));
    // Read once, with the version: a server's APIs change only with an upgrade, which restarts us.
    ResourceApiVersion resourceApi = ResourceApiVersion.discover(client).orElse(null);
    // One Node cache for every controller but the node labeller (whose primary Nodes are).
    SharedNodes nodes = new SharedNodes(client);
    OperatorConfig platform =
        config.withOpenShift(
            config.openShift() || io.gpuoperator.operator.cluster.OpenShift.served(client));
    if (platform.openShift()) {
      LOG.info("OpenShift: operands get their SecurityContextConstraints");
    }
    operator.register(
        new ClusterPolicyReconciler(
            client, platform, renderer, metrics, serverVersion, resourceApi, nodes),
        c ->
            c.withName("clusterpolicy")
                .withRetry(retry(config))
                .withReconciliationMaxInterval(config.resyncPeriod()));
    DriverUpgradeReconciler upgrade =
        new DriverUpgradeReconciler(client, config, metrics, java.time.Clock.systemUTC(), nodes);
    operator.register(upgrade, c -> c.withName("driverupgrade"));
    operator.register(
        new RemediationReconciler(client, config, metrics, java.time.Clock.systemUTC(), nodes),
        c -> c.withName("remediation"));
    operator.register(
        new NvidiaDriverUpgradeReconciler(upgrade, config), c -> c.withName("nvidiadriverupgrade"));
    operator.register(
        new NvidiaDriverReconciler(client, config, serverVersion, nodes),
        c -> c.withName("nvidiadriver"));
    operator.register(
        new GpuClusterReconciler(client, config, serverVersion, resourceApi, nodes),
        c -> c.withName("gpucluster").withRetry(retry(config)));
    // NVIDIA's finalizer name, so that a domain handed over from (or to) their controller keeps it.
    operator.register(
        new ComputeDomainReconciler(client, config, resourceApi, nodes),
        c ->
            c.withName("computedomain")
                .withFinalizer(ComputeDomainModel.FINALIZER)
                .withRetry(retry(config)));
    operator.register(
        new NodeLabelReconciler(client, planner, new LastValidPolicy(renderer::validate)),
        c ->
            c.withGenerationAware(false)
                .withName("nodelabels")
                .withRetry(retry(config))
                .withReconciliationMaxInterval(config.resyncPeriod())
                .withItemStore(io.gpuoperator.operator.cluster.NodeSlimming.store()));
    if (config.leaderElection()) {
      election =
          new LeaseElection(
              client,
              config,
              ReconcilerKeys.LEASE_NAME,
              options.identity(),
              this::startLeading,
              this::lostLease);
    } else {
      election = null;
      leader.set(true);
    }
  }

  /**
   * Retries a failed reconcile without end: JOSDK's default gives up after 5 attempts (about 25 s)
   * and nothing requeues, so an API server outage longer than that would leave the policy
   * unreconciled until its next event, possibly hours away. Backoff doubles from 1 s up to
   * RECONCILE_BACKOFF_MAX.
   */
  static GenericRetry retry(OperatorConfig config) {
    return new GenericRetry()
        .setInitialInterval(Duration.ofSeconds(1))
        .setIntervalMultiplier(2)
        .setMaxInterval(config.reconcileBackoffMax().toMillis())
        .withoutMaxAttempts();
  }

  /** Starts the metrics and health servers, then the controllers (blocks until caches sync). */
  public GpuOperator start() throws IOException {
    PrometheusTextFormatWriter text = PrometheusTextFormatWriter.create();
    metricsServer =
        HttpEndpoints.start(
            options.metricsHost(),
            config.metricsPort(),
            Map.of(
                "/metrics",
                out -> {
                  text.write(out, metrics.registry().scrape());
                  return 200;
                }));
    healthServer =
        HttpEndpoints.start(
            options.healthHost(),
            config.healthPort(),
            Map.of(
                "/healthz",
                out ->
                    answer(
                        out,
                        !started.get() || operator.getRuntimeInfo().allEventSourcesAreHealthy()),
                "/readyz",
                out -> {
                  String problem = crdProblem.get();
                  if (problem != null) {
                    out.write(("not ready: " + problem).getBytes(StandardCharsets.UTF_8));
                    return 503;
                  }
                  // A standby is ready once it takes part in the election: it starts its
                  // controllers (and their caches) only when it leads.
                  return answer(out, started.get() || (electing.get() && !leader.get()));
                }));
    LOG.info(
        "gpu-operator {}: namespace {}, metrics {}:{}, health {}:{}, leader election {}",
        options.identity(),
        config.namespace(),
        options.metricsHost(),
        metricsServer.port(),
        options.healthHost(),
        healthServer.port(),
        config.leaderElection());
    if (!crdsCurrent()) {
      // Not ready, and no reconciling against a schema that would prune our fields; retried.
      crdRetry = new Thread(this::retryCrds, "gpu-operator-crd-upgrade");
      crdRetry.setDaemon(true);
      crdRetry.start();
      return this;
    }
    startOrElect();
    return this;
  }

  /** With leader election, takes part in it; otherwise starts the controllers now. */
  private void startOrElect() {
    if (election == null) {
      startControllers();
    } else {
      electing.set(true);
      election.start();
    }
  }

  /** Starts the controllers (blocks until their caches sync), once. */
  private synchronized void startControllers() {
    if (started.get() || closing.get()) {
      return;
    }
    operator.start();
    started.set(true);
  }

  /**
   * Called by the election when this instance leads: the controllers start in a thread of their
   * own, as starting them waits for their caches to sync and the election's thread must go on
   * renewing the lease meanwhile.
   */
  private void startLeading() {
    LOG.info("Lease {}: {} leads", ReconcilerKeys.LEASE_NAME, options.identity());
    leader.set(true);
    Thread start =
        new Thread(
            () -> {
              try {
                startControllers();
              } catch (RuntimeException e) {
                LOG.error("the controllers failed to start: {}", e.getMessage(), e);
                if (options.exitOnLostLease()) {
                  System.exit(1);
                }
              }
            },
            "gpu-operator-start");
    start.setDaemon(true);
    start.start();
  }

  /** Upgrades the operator's CRDs where older (see {@link CrdUpgrade}); false if it cannot. */
  private boolean crdsCurrent() {
    List<String> problems = CrdUpgrade.ensure(client);
    if (problems.isEmpty()) {
      crdProblem.set(null);
      return true;
    }
    problems.forEach(p -> LOG.error("{}; not ready, retrying every {}", p, CRD_RETRY));
    crdProblem.set(String.join("; ", problems));
    return false;
  }

  private void retryCrds() {
    try {
      while (!closing.get()) {
        Thread.sleep(CRD_RETRY.toMillis());
        if (!closing.get() && crdsCurrent()) {
          startOrElect();
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int answer(java.io.OutputStream out, boolean ok) throws IOException {
    out.write((ok ? "ok" : "not ready").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return ok ? 200 : 503;
  }

  /**
   * Called when leadership ends: on close (nothing to do) or because the lease was lost while
   * running, when the process exits (if so configured) so that two replicas never reconcile at
   * once.
   */
  private void lostLease() {
    leader.set(false);
    if (closing.get()) {
      return;
    }
    LOG.warn("Lease {}: {} lost the lease", ReconcilerKeys.LEASE_NAME, options.identity());
    leaseLost.complete(null);
    // Reconciling stops at once (two replicas never reconcile together), then the process exits
    // if so configured; an embedder closes this instance on leaseLost().
    new Thread(
            () -> {
              stopControllers();
              if (options.exitOnLostLease()) {
                System.exit(1);
              }
            },
            "gpu-operator-exit")
        .start();
  }

  /**
   * Completes when the lease is lost while running. Without {@code exitOnLostLease} (an operator
   * embedded in a bigger process, as the simulator runs it) the controllers are stopped and the
   * embedder closes this instance then.
   */
  public java.util.concurrent.CompletableFuture<Void> leaseLost() {
    return leaseLost;
  }

  public boolean isLeader() {
    return leader.get();
  }

  public int metricsPort() {
    return metricsServer.port();
  }

  public int healthPort() {
    return healthServer.port();
  }

  public OperatorMetrics metrics() {
    return metrics;
  }

  public KubernetesClient client() {
    return client;
  }

  private synchronized void stopControllers() {
    started.set(false);
    operator.stop();
  }

  /** Stops reconciling; the lease is not released, as when the process dies. */
  @Override
  public void close() {
    closing.set(true);
    started.set(false);
    if (crdRetry != null) {
      crdRetry.interrupt();
    }
    try {
      if (election != null) {
        election.close();
      }
      stopControllers();
    } finally {
      if (metricsServer != null) {
        metricsServer.close();
      }
      if (healthServer != null) {
        healthServer.close();
      }
    }
  }
}

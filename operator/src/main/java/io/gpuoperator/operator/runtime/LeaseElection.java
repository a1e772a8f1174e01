package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.gpuoperator.operator.config.OperatorConfig;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The operator's leader election on a Lease: fabric8's elector (acquire every retry period with
 * jitter, renew every retry period, give up after the renew deadline) over {@link
 * OptimisticLeaseLock}, on one thread of its own. JOSDK's leader election builds fabric8's reading
 * {@code LeaseLock} privately, so the operator elects its leader itself and starts its controllers
 * once it leads. The lease is not released on {@link #close}, as when the process dies.
 */
final class LeaseElection implements AutoCloseable {
  private final LeaderElector elector;
  private final ThreadPoolExecutor thread = ThreadPools.bounded("lease", 1);
  private Future<?> running;

  /**
   * {@code onStart} and {@code onStop} run in the election's thread while it holds its lock: they
   * must hand long work to another thread.
   */
  LeaseElection(
      KubernetesClient client,
      OperatorConfig config,
      String leaseName,
      String identity,
      Runnable onStart,
      Runnable onStop) {
    if (config.leaderElectionNamespace() == null || config.leaderElectionNamespace().isBlank()) {
      throw new IllegalArgumentException(
          "leader election: no namespace for the Lease (--leader-elect-namespace, "
              + "LEADER_ELECT_NAMESPACE or OPERATOR_NAMESPACE)");
    }
    this.elector =
        new LeaderElector(
            client,
            new LeaderElectionConfig(
                new OptimisticLeaseLock(config.leaderElectionNamespace(), leaseName, identity),
                config.leaseDuration(),
                config.renewDeadline(),
                config.retryPeriod(),
                new LeaderCallbacks(onStart::run, onStop::run, leader -> {}),
                false,
                leaseName),
            thread);
  }

  synchronized void start() {
    running = elector.start();
  }

  @Override
  public synchronized void close() {
    if (running != null) {
      running.cancel(true);
    }
    thread.shutdown();
  }
}

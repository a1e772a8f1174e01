package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Benchmark, not a test (run by scripts/bench-driver-upgrade.sh): a driver upgrade of N GPU nodes
 * (default 200) at 10% parallelism against a real control plane (API server, DaemonSet controller,
 * scheduler), the operator in-process, and a {@link FleetKubelet} whose driver containers take a
 * fixed simulated install time. Each node runs one GPU pod that the upgrade evicts. It reports how
 * long each node spends between leaving upgrade-required and upgrade-done beyond that install time
 * (the orchestration overhead: cordon, eviction, pod restart, validation, uncordon, and the
 * DaemonSet controller and scheduler in between), the wall time against the ideal (waves of install
 * time), and the operator's writes.
 */
public final class DriverUpgradeBenchmark {
  private static final Duration POLL = Duration.ofSeconds(1);

  private DriverUpgradeBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int percent = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Duration install = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 20);
    int parallel = Math.max(1, (int) Math.ceil(count * percent / 100.0));
    try (FleetBench bench = FleetBench.start(count, "daemonset", install)) {
      KubernetesClient admin = bench.admin();
      String work = bench.work();
      List<String> names = bench.names();
      admin.resource(policy(parallel, percent)).create();
      bench.waitFor(
          "every node upgrade-done on the first driver", POLL, () -> allDone(admin, count));
      for (String n : names) {
        admin.resource(GpuWorkloads.pinnedPod(work, n)).create();
      }
      bench.waitFor(
          "a GPU pod running on every node",
          POLL,
          () -> GpuWorkloads.running(admin, work) == count);

      Map<String, Long> started = new ConcurrentHashMap<>();
      Map<String, Long> done = new ConcurrentHashMap<>();
      var watch =
          FleetBench.onNodeUpdate(
              admin,
              n -> {
                String name = n.getMetadata().getName();
                UpgradeState s = UpgradeState.of(label(n));
                long now = System.nanoTime();
                if (s.inProgress()) {
                  started.putIfAbsent(name, now);
                } else if (s == UpgradeState.UPGRADE_DONE && started.containsKey(name)) {
                  done.putIfAbsent(name, now);
                }
              });
      long mark = bench.audit().mark();
      long t0 = System.nanoTime();
      ItCluster.upgradeDriverTo(admin, "999.1");
      bench.waitFor("every node upgraded", POLL, () -> done.size() == count);
      long end = System.nanoTime();
      watch.close();

      List<Double> overhead = new ArrayList<>();
      List<Double> perNode = new ArrayList<>();
      for (String n : names) {
        double seconds = (done.get(n) - started.get(n)) / 1e9;
        perNode.add(seconds);
        overhead.add(seconds - install.toMillis() / 1000.0);
      }
      Collections.sort(overhead);
      Collections.sort(perNode);
      double wall = (end - t0) / 1e9;
      double ideal = Math.ceil(count / (double) parallel) * install.toMillis() / 1000.0;
      System.out.println();
      System.out.println("== DriverUpgradeBenchmark ==");
      System.out.printf(
          "%d nodes, maxParallelUpgrades %d (%d%%), simulated driver install %d s, one GPU pod"
              + " per node%n",
          count, parallel, percent, install.toSeconds());
      System.out.println(
          "per node, upgrade start -> upgrade-done: " + FleetBench.percentiles(perNode, 1));
      System.out.println(
          "orchestration overhead per node (above the install): "
              + FleetBench.percentiles(overhead, 1));
      System.out.printf(
          "rollout wall time %.0f s against %.0f s of install waves (ratio %.2f)%n",
          wall, ideal, wall / ideal);
      System.out.println(bench.operatorWritesSince(mark, count, "node"));
    }
  }

  private static ClusterPolicy policy(int parallel, int percent) {
    return ItCluster.driverOnlyPolicy(
        """
        autoUpgrade: true
        maxParallelUpgrades: %d
        maxUnavailable: "%d%%"
        podDeletion: {force: true}
        """
            .formatted(parallel, percent));
  }

  private static String label(Node n) {
    return n.getMetadata().getLabels() == null
        ? null
        : n.getMetadata().getLabels().get(UpgradeKeys.STATE);
  }

  private static boolean allDone(KubernetesClient admin, int count) {
    return admin.nodes().list().getItems().stream()
            .filter(n -> "upgrade-done".equals(label(n)))
            .count()
        == count;
  }
}

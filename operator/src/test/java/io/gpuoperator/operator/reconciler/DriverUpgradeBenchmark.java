package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeState;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

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
  private DriverUpgradeBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int percent = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Duration install = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 20);
    int parallel = Math.max(1, (int) Math.ceil(count * percent / 100.0));
    List<String> names =
        IntStream.range(0, count).mapToObj(i -> String.format("bench-%04d", i)).toList();
    long startup = System.nanoTime();
    try (ControlPlane cp =
            ControlPlane.builder()
                .controllers(ControlPlane.GC_CONTROLLERS + ",daemonset")
                .scheduler(true)
                .start();
        FleetKubelet fleet = new FleetKubelet(cp.client(), names, install)) {
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      String ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
      String work = ControlPlaneExtension.newNamespace(admin, "work");
      AuditLog audit = new AuditLog(cp.auditLog());
      fleet.start(ItCluster.NFD_GPU);
      progress(startup, count + " nodes registered");
      try (OperatorInstance operator =
          OperatorInstance.start(
              cp,
              ns,
              "bench",
              new OperandRegistryRenderer(),
              new NodeLabelRulesPlanner(),
              Map.of("LEADER_ELECT", "false"))) {
        admin.resource(policy(parallel, percent)).create();
        waitFor(
            startup, "every node upgrade-done on the first driver", () -> allDone(admin, count));
        for (String n : names) {
          admin.resource(gpuPod(work, n)).create();
        }
        waitFor(
            startup,
            "a GPU pod running on every node",
            () ->
                admin.pods().inNamespace(work).list().getItems().stream()
                        .filter(
                            p ->
                                p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
                        .count()
                    == count);

        Map<String, Long> started = new ConcurrentHashMap<>();
        Map<String, Long> done = new ConcurrentHashMap<>();
        var watch =
            admin
                .nodes()
                .inform(
                    new ResourceEventHandler<Node>() {
                      @Override
                      public void onAdd(Node n) {}

                      @Override
                      public void onUpdate(Node old, Node n) {
                        String name = n.getMetadata().getName();
                        UpgradeState s = UpgradeState.of(label(n));
                        long now = System.nanoTime();
                        if (s.inProgress()) {
                          started.putIfAbsent(name, now);
                        } else if (s == UpgradeState.UPGRADE_DONE && started.containsKey(name)) {
                          done.putIfAbsent(name, now);
                        }
                      }

                      @Override
                      public void onDelete(Node n, boolean unknown) {}
                    });
        long mark = audit.mark();
        long t0 = System.nanoTime();
        admin
            .resources(ClusterPolicy.class)
            .withName("cluster-policy")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"driver\":{\"version\":\"999.1\"}}}");
        waitFor(startup, "every node upgraded", () -> done.size() == count);
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
        var writes = audit.writesSince(mark, operator.userAgent);
        System.out.println();
        System.out.println("== DriverUpgradeBenchmark ==");
        System.out.printf(
            "%d nodes, maxParallelUpgrades %d (%d%%), simulated driver install %d s, one GPU pod"
                + " per node%n",
            count, parallel, percent, install.toSeconds());
        System.out.printf(
            "per node, upgrade start -> upgrade-done: p50 %.1f s, p90 %.1f s, max %.1f s%n",
            NodeLabelBenchmark.pct(perNode, 50),
            NodeLabelBenchmark.pct(perNode, 90),
            NodeLabelBenchmark.pct(perNode, 100));
        System.out.printf(
            "orchestration overhead per node (above the install): p50 %.1f s, p90 %.1f s, max %.1f"
                + " s%n",
            NodeLabelBenchmark.pct(overhead, 50),
            NodeLabelBenchmark.pct(overhead, 90),
            NodeLabelBenchmark.pct(overhead, 100));
        System.out.printf(
            "rollout wall time %.0f s against %.0f s of install waves (ratio %.2f)%n",
            wall, ideal, wall / ideal);
        System.out.printf(
            "operator writes: %d (%.1f per node): %s%n",
            writes.size(),
            writes.size() / (double) count,
            writes.stream()
                .collect(
                    Collectors.groupingBy(
                        w -> w.verb() + " " + w.resource() + (w.sub() == null ? "" : "/" + w.sub()),
                        Collectors.counting())));
      }
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

  private static io.fabric8.kubernetes.api.model.Pod gpuPod(String ns, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("train-" + node)
        .withNamespace(ns)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withAutomountServiceAccountToken(false)
        .addNewContainer()
        .withName("main")
        .withImage("registry.example/train:1")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
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

  private static void waitFor(long since, String what, java.util.function.BooleanSupplier until)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (!until.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(1_000);
    }
    progress(since, what);
  }

  private static void progress(long since, String what) {
    System.out.printf("[%4.0f s] %s%n", (System.nanoTime() - since) / 1e9, what);
  }
}

package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.gpuoperator.api.Crds;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Benchmark, not a test (run by scripts/bench-node-labels.sh): N GPU nodes (Node objects with NFD
 * labels) are created at once against a real API server with the operator running; it measures the
 * time until every node carries its labels and the GPU taint, and counts the operator's write
 * requests in the API server's audit log.
 */
public final class NodeLabelBenchmark {
  private NodeLabelBenchmark() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int creators = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    try (ControlPlane cp =
        ControlPlane.builder().controllers(ControlPlane.GC_CONTROLLERS).start()) {
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      String ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
      AuditLog audit = new AuditLog(cp.auditLog());
      try (OperatorInstance operator = OperatorInstance.on(cp, ns, "bench").start()) {
        while (!operator.operator.isLeader()) {
          Thread.sleep(100);
        }
        // With spec.nodeTaint (off by default), so that a node's work is its labels and taint.
        var policy = ItCluster.samplePolicy("cluster-policy");
        policy.getSpec().nodeTaint = new io.gpuoperator.api.v1.NodeTaintSpec();
        admin.resource(policy).create();
        // Let the first pass (operands, status) finish so that only node work is measured.
        Thread.sleep(5_000);

        Map<String, Long> created = new ConcurrentHashMap<>();
        Map<String, Long> labelled = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(nodes);
        var watch =
            admin
                .nodes()
                .watch(
                    new Watcher<Node>() {
                      @Override
                      public void eventReceived(Action action, Node node) {
                        if (node.getMetadata().getName().startsWith("bench-gpu-")
                            && complete(node)
                            && labelled.putIfAbsent(node.getMetadata().getName(), System.nanoTime())
                                == null) {
                          done.countDown();
                        }
                      }

                      @Override
                      public void onClose(WatcherException cause) {}
                    });
        long mark = audit.mark();
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(creators);
        for (int i = 0; i < nodes; i++) {
          String name = String.format("bench-gpu-%04d", i);
          pool.submit(
              () -> {
                created.put(name, System.nanoTime());
                admin.nodes().resource(ItCluster.node(name, ItCluster.NFD_GPU)).create();
              });
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        long createdAll = System.nanoTime();
        boolean all = done.await(5, TimeUnit.MINUTES);
        long end = System.nanoTime();
        watch.close();
        Thread.sleep(5_000); // late writes (a second patch, status) still count
        var writes = audit.writesSince(mark, operator.userAgent);
        long nodeWrites = writes.stream().filter(w -> w.resource().equals("nodes")).count();
        List<Double> latencies = new ArrayList<>();
        labelled.forEach((n, t) -> latencies.add((t - created.get(n)) / 1e6));
        Collections.sort(latencies);
        System.out.println();
        System.out.println("== NodeLabelBenchmark ==");
        System.out.printf(
            "nodes created: %d by %d threads in %.1f s%n", nodes, creators, sec(createdAll - t0));
        System.out.printf(
            "all %d nodes labelled and tainted: %s, %.1f s after the first create%n",
            labelled.size(), all ? "yes" : "NO", sec(end - t0));
        System.out.printf(
            "per node (create -> labels+taint seen): p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms%n",
            pct(latencies, 50), pct(latencies, 90), pct(latencies, 99), pct(latencies, 100));
        System.out.printf(
            "operator writes: %d node patches (%.2f per node), %d in all (%.2f per node): %s%n",
            nodeWrites,
            nodeWrites / (double) nodes,
            writes.size(),
            writes.size() / (double) nodes,
            writes.stream()
                .collect(
                    Collectors.groupingBy(
                        w -> w.verb() + " " + w.resource() + (w.sub() == null ? "" : "/" + w.sub()),
                        Collectors.counting())));
      }
    }
  }

  static boolean complete(Node n) {
    var labels = n.getMetadata().getLabels();
    return labels != null
        && "true".equals(labels.get("nvidia.com/gpu.present"))
        && "true".equals(labels.get("nvidia.com/gpu.deploy.device-plugin"))
        && n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> "nvidia.com/gpu".equals(t.getKey()));
  }

  static double sec(long nanos) {
    return nanos / 1e9;
  }

  static double pct(List<Double> sorted, int p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }
}

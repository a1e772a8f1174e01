package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Benchmark, not a test (run by scripts/bench-remediation.sh): GPU fault remediation on N GPU nodes
 * (default 1,000) against a real control plane (API server, ReplicaSet and DaemonSet controllers,
 * scheduler), the operator in-process, one {@link FleetKubelet} for every node. F nodes (default
 * 20), each running one GPU pod of a ReplicaSet, get a fatal-XID condition at once, written as the
 * device plugin writes it; a stand-in for the nodes' device plugins answers each GPU reset request
 * at once (condition False, GpuReset True). It reports, per faulty node, the time from the fault
 * condition to the taint and to back in service (untainted, uncordoned), and the operator's writes.
 */
public final class RemediationBenchmark {
  private static final Duration POLL = Duration.ofMillis(200);

  private RemediationBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int faults = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int concurrent = args.length > 2 ? Integer.parseInt(args[2]) : faults;
    try (FleetBench bench =
        FleetBench.start(count, "daemonset,replicaset", Duration.ofSeconds(1))) {
      KubernetesClient admin = bench.admin();
      String work = bench.work();
      List<String> faulty = bench.names().subList(0, faults);
      admin.resource(policy(concurrent, count)).create();
      bench.waitFor(
          "every node labelled nvidia.com/gpu.present=true",
          POLL,
          () ->
              admin.nodes().withLabel("nvidia.com/gpu.present", "true").list().getItems().size()
                  == count);
      for (String n : faulty) {
        admin.resource(GpuWorkloads.pinnedReplicaSet(work, n)).create();
      }
      bench.waitFor(
          "a GPU pod running on each of the " + faults + " nodes to fault",
          POLL,
          () -> GpuWorkloads.running(admin, work) == faults);

      Map<String, Long> faultAt = new ConcurrentHashMap<>();
      Map<String, Long> taintAt = new ConcurrentHashMap<>();
      Map<String, Long> backAt = new ConcurrentHashMap<>();
      Set<String> answered = ConcurrentHashMap.newKeySet();
      ExecutorService agents = Executors.newFixedThreadPool(4);
      var watch =
          FleetBench.onNodeUpdate(
              admin,
              n -> {
                String name = n.getMetadata().getName();
                if (!faultAt.containsKey(name)) {
                  return;
                }
                long now = System.nanoTime();
                if (tainted(n)) {
                  taintAt.putIfAbsent(name, now);
                }
                Map<String, String> l = n.getMetadata().getLabels();
                if (l != null
                    && RemediationState.RECOVERED.label().equals(l.get(RemediationKeys.STATE))
                    && !tainted(n)
                    && !Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
                  backAt.putIfAbsent(name, now);
                }
                Map<String, String> a = n.getMetadata().getAnnotations();
                String token = a == null ? null : a.get(RemediationKeys.RESET_REQUESTED);
                if (token != null && answered.add(name + "/" + token)) {
                  // The device plugin's part: the GPU reset, its fault gone, the answer.
                  agents.execute(
                      () -> {
                        NodeConditions.write(
                            admin,
                            name,
                            NodeConditions.condition(
                                GpuFaultContract.ECC, "False", "Recovered", "reset"),
                            NodeConditions.condition(
                                GpuFaultContract.RESET_CONDITION,
                                "True",
                                GpuFaultContract.RESET_DONE,
                                GpuFaultContract.answerPrefix(token) + " reset GPU-0"));
                      });
                }
              });
      long mark = bench.audit().mark();
      long t0 = System.nanoTime();
      for (String n : faulty) {
        faultAt.put(n, System.nanoTime());
        NodeConditions.write(
            admin,
            n,
            NodeConditions.condition(
                GpuFaultContract.ECC,
                "True",
                "DoubleBitEcc",
                "GPU-0: XID 48 (DoubleBitEcc, 1 time)"));
      }
      bench.waitFor("every faulty node back in service", POLL, () -> backAt.size() == faults);
      long end = System.nanoTime();
      watch.close();
      agents.shutdown();

      List<Double> toTaint = new ArrayList<>();
      List<Double> toBack = new ArrayList<>();
      for (String n : faulty) {
        toTaint.add((taintAt.get(n) - faultAt.get(n)) / 1e9);
        toBack.add((backAt.get(n) - faultAt.get(n)) / 1e9);
      }
      Collections.sort(toTaint);
      Collections.sort(toBack);
      System.out.println();
      System.out.println("== RemediationBenchmark ==");
      System.out.printf(
          "%d GPU nodes, %d with a fatal XID at once (one GPU pod each), maxConcurrent %d,"
              + " resets answered at once%n",
          count, faults, concurrent);
      System.out.println("fault -> taint: " + FleetBench.percentiles(toTaint, 2));
      System.out.printf(
          "fault -> back in service: %s; all %d in %.1f s%n",
          FleetBench.percentiles(toBack, 2), faults, (end - t0) / 1e9);
      System.out.println(bench.operatorWritesSince(mark, faults, "faulty node"));
    }
  }

  private static boolean tainted(Node n) {
    return n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> RemediationKeys.TAINT.equals(t.getKey()));
  }

  private static ClusterPolicy policy(int concurrent, int count) {
    ClusterPolicy p = ItCluster.driverOnlyPolicy("autoUpgrade: false\n");
    p.getSpec().remediation = new RemediationSpec();
    p.getSpec().remediation.enabled = true;
    p.getSpec().remediation.maxConcurrent = new IntOrString(concurrent);
    p.getSpec().remediation.maxFaultyNodes = new IntOrString("10%");
    p.getSpec().remediation.coolDownSeconds = 600;
    return p;
  }
}

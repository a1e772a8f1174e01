package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

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
  private RemediationBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int faults = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int concurrent = args.length > 2 ? Integer.parseInt(args[2]) : faults;
    List<String> names =
        IntStream.range(0, count).mapToObj(i -> String.format("bench-%04d", i)).toList();
    List<String> faulty = names.subList(0, faults);
    long startup = System.nanoTime();
    try (ControlPlane cp =
            ControlPlane.builder()
                .controllers(ControlPlane.GC_CONTROLLERS + ",daemonset,replicaset")
                .scheduler(true)
                .start();
        FleetKubelet fleet = new FleetKubelet(cp.client(), names, Duration.ofSeconds(1))) {
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
        admin.resource(policy(concurrent, count)).create();
        waitFor(
            startup,
            "every node labelled nvidia.com/gpu.present=true",
            () ->
                admin.nodes().withLabel("nvidia.com/gpu.present", "true").list().getItems().size()
                    == count);
        for (String n : faulty) {
          admin.resource(replicaSet(work, n)).create();
        }
        waitFor(
            startup,
            "a GPU pod running on each of the " + faults + " nodes to fault",
            () ->
                admin.pods().inNamespace(work).list().getItems().stream()
                        .filter(
                            p ->
                                p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
                        .count()
                    == faults);

        Map<String, Long> faultAt = new ConcurrentHashMap<>();
        Map<String, Long> taintAt = new ConcurrentHashMap<>();
        Map<String, Long> backAt = new ConcurrentHashMap<>();
        Set<String> answered = ConcurrentHashMap.newKeySet();
        ExecutorService agents = Executors.newFixedThreadPool(4);
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
                        if (!faultAt.containsKey(name)) {
                          return;
                        }
                        long now = System.nanoTime();
                        if (tainted(n)) {
                          taintAt.putIfAbsent(name, now);
                        }
                        Map<String, String> l = n.getMetadata().getLabels();
                        if (l != null
                            && RemediationState.RECOVERED
                                .label()
                                .equals(l.get(RemediationKeys.STATE))
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
                                conditions(
                                    admin,
                                    name,
                                    condition(GpuFaultContract.ECC, "False", "Recovered", "reset"),
                                    condition(
                                        GpuFaultContract.RESET_CONDITION,
                                        "True",
                                        GpuFaultContract.RESET_DONE,
                                        GpuFaultContract.answerPrefix(token) + " reset GPU-0"));
                              });
                        }
                      }

                      @Override
                      public void onDelete(Node n, boolean unknown) {}
                    });
        long mark = audit.mark();
        long t0 = System.nanoTime();
        for (String n : faulty) {
          faultAt.put(n, System.nanoTime());
          conditions(
              admin,
              n,
              condition(
                  GpuFaultContract.ECC,
                  "True",
                  "DoubleBitEcc",
                  "GPU-0: XID 48 (DoubleBitEcc, 1 time)"));
        }
        waitFor(startup, "every faulty node back in service", () -> backAt.size() == faults);
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
        var writes = audit.writesSince(mark, operator.userAgent);
        System.out.println();
        System.out.println("== RemediationBenchmark ==");
        System.out.printf(
            "%d GPU nodes, %d with a fatal XID at once (one GPU pod each), maxConcurrent %d,"
                + " resets answered at once%n",
            count, faults, concurrent);
        System.out.printf(
            "fault -> taint: p50 %.2f s, p90 %.2f s, max %.2f s%n",
            NodeLabelBenchmark.pct(toTaint, 50),
            NodeLabelBenchmark.pct(toTaint, 90),
            NodeLabelBenchmark.pct(toTaint, 100));
        System.out.printf(
            "fault -> back in service: p50 %.2f s, p90 %.2f s, max %.2f s; all %d in %.1f s%n",
            NodeLabelBenchmark.pct(toBack, 50),
            NodeLabelBenchmark.pct(toBack, 90),
            NodeLabelBenchmark.pct(toBack, 100),
            faults,
            (end - t0) / 1e9);
        System.out.printf(
            "operator writes: %d (%.1f per faulty node): %s%n",
            writes.size(),
            writes.size() / (double) faults,
            writes.stream()
                .collect(
                    Collectors.groupingBy(
                        w -> w.verb() + " " + w.resource() + (w.sub() == null ? "" : "/" + w.sub()),
                        Collectors.counting())));
      }
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

  private static Map<String, Object> condition(
      String type, String status, String reason, String message) {
    String now = Instant.now().toString();
    return Map.of(
        "type", type,
        "status", status,
        "reason", reason,
        "message", message,
        "lastHeartbeatTime", now,
        "lastTransitionTime", now);
  }

  /** Writes node conditions as the device plugin does: a strategic merge of the status by type. */
  @SafeVarargs
  private static void conditions(
      KubernetesClient admin, String node, Map<String, Object>... conditions) {
    admin
        .nodes()
        .withName(node)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            Serialization.asJson(Map.of("status", Map.of("conditions", List.of(conditions)))));
  }

  private static io.fabric8.kubernetes.api.model.apps.ReplicaSet replicaSet(
      String ns, String node) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName("train-" + node)
        .withNamespace(ns)
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .withNewSelector()
        .addToMatchLabels("app", "train-" + node)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "train-" + node)
        .endMetadata()
        .withNewSpec()
        .addToNodeSelector("kubernetes.io/hostname", node)
        .withTerminationGracePeriodSeconds(0L)
        .withAutomountServiceAccountToken(false)
        .addNewContainer()
        .withName("main")
        .withImage("registry.example/train:1")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static void waitFor(long since, String what, java.util.function.BooleanSupplier until)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (!until.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(200);
    }
    progress(since, what);
  }

  private static void progress(long since, String what) {
    System.out.printf("[%4.0f s] %s%n", (System.nanoTime() - since) / 1e9, what);
  }
}

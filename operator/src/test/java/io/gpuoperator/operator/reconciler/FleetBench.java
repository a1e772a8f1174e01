package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.Informers;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What the fleet benchmarks (driver upgrade, GPU fault remediation) stand on: a real control plane
 * with the scheduler and the given controllers, N NFD-labelled GPU nodes bench-0000... served by
 * one {@link FleetKubelet}, the CRDs, the operator's and the workloads' namespaces, the audit log,
 * and the operator in-process without leader election. Progress lines are timed from the start.
 *
 * @param startup {@link System#nanoTime()} when it began starting, which progress lines count from
 */
record FleetBench(
    List<String> names,
    ControlPlane cp,
    FleetKubelet fleet,
    String work,
    OperatorInstance operator,
    long startup)
    implements AutoCloseable {

  KubernetesClient admin() {
    return cp.client();
  }

  AuditLog audit() {
    return new AuditLog(cp.auditLog());
  }

  /**
   * Starts it all; {@code controllers} are the controller-manager's beyond the garbage collector,
   * {@code install} how long the fleet's driver containers take to become ready.
   */
  static FleetBench start(int count, String controllers, Duration install) throws Exception {
    long startup = System.nanoTime();
    List<String> names =
        IntStream.range(0, count).mapToObj(i -> String.format("bench-%04d", i)).toList();
    ControlPlane cp =
        ControlPlane.builder()
            .controllers(ControlPlane.GC_CONTROLLERS + "," + controllers)
            .scheduler(true)
            .start();
    FleetKubelet fleet = null;
    try {
      fleet = new FleetKubelet(cp.client(), names, install);
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      String ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
      String work = ControlPlaneExtension.newNamespace(admin, "work");
      fleet.start(ItCluster.NFD_GPU);
      progress(startup, count + " nodes registered");
      OperatorInstance operator =
          OperatorInstance.on(cp, ns, "bench").withoutLeaderElection().start();
      return new FleetBench(names, cp, fleet, work, operator, startup);
    } catch (Exception | Error e) {
      if (fleet != null) {
        fleet.close();
      }
      cp.close();
      throw e;
    }
  }

  /**
   * Waits (up to 30 minutes, polling every {@code poll}) until the condition holds, then says so.
   */
  void waitFor(String what, Duration poll, BooleanSupplier until) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (!until.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(poll.toMillis());
    }
    progress(startup, what);
  }

  /** The operator's writes since the mark, counted by verb and resource[/subresource]. */
  String operatorWritesSince(long mark, int per, String perWhat) {
    var writes = audit().writesSince(mark, operator.userAgent);
    return String.format(
        "operator writes: %d (%.1f per %s): %s",
        writes.size(),
        writes.size() / (double) per,
        perWhat,
        writes.stream()
            .collect(
                Collectors.groupingBy(
                    w -> w.verb() + " " + w.resource() + (w.sub() == null ? "" : "/" + w.sub()),
                    Collectors.counting())));
  }

  /**
   * Hands every update of a Node to {@code onUpdate}, on the informer's thread, until the returned
   * informer is closed: how a benchmark times the moments each node reaches a state.
   */
  static SharedIndexInformer<Node> onNodeUpdate(KubernetesClient admin, Consumer<Node> onUpdate) {
    return admin.nodes().inform(Informers.onChange(onUpdate));
  }

  /** "p50 X s, p90 Y s, max Z s" of sorted seconds, with the given number of decimals. */
  static String percentiles(List<Double> sorted, int decimals) {
    String f = "%." + decimals + "f";
    return String.format(
        "p50 " + f + " s, p90 " + f + " s, max " + f + " s",
        NodeLabelBenchmark.pct(sorted, 50),
        NodeLabelBenchmark.pct(sorted, 90),
        NodeLabelBenchmark.pct(sorted, 100));
  }

  private static void progress(long since, String what) {
    System.out.printf("[%4.0f s] %s%n", (System.nanoTime() - since) / 1e9, what);
  }

  @Override
  public void close() {
    try {
      operator.close();
    } finally {
      try {
        fleet.close();
      } finally {
        cp.close();
      }
    }
  }
}

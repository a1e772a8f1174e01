package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.Crds;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedNodes;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;

/**
 * The cluster the driver ITs share: a control plane with the controller manager (DaemonSet
 * controller, garbage collector) and the scheduler, our CRDs, the operator's namespace and one for
 * workloads, and a simulated kubelet per node. Each IT starts it in its {@code @BeforeAll} with its
 * own nodes, then its own operator, which it names here so that the operator it runs last is
 * stopped first. The fields are static, as {@code @BeforeAll} needs; ITs run one at a time.
 */
abstract class SimulatedGpuCluster {
  static ControlPlane cp;
  static KubernetesClient admin;
  static AuditLog audit;
  static String ns;
  static String work;
  static SimulatedNodes kubelets;
  private static Supplier<? extends AutoCloseable> operator;

  /**
   * Starts the cluster with these nodes. With {@code gpus} above zero each node gets that many GPUs
   * in its capacity directly, for ITs that run no device plugin. {@code currentOperator} gives the
   * operator the IT runs when the tests end (it may have restarted it), stopped before the rest.
   */
  static void startCluster(
      List<NodeDescription> nodes, int gpus, Supplier<? extends AutoCloseable> currentOperator)
      throws Exception {
    operator = currentOperator;
    List<String> names = nodes.stream().map(NodeDescription::name).toList();
    cp = ControlPlane.builder().controllerManager(true).scheduler(true).nodes(names).start();
    admin = cp.client();
    audit = new AuditLog(cp.auditLog());
    Crds.apply(admin);
    ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
    work = ControlPlaneExtension.newNamespace(admin, "work");
    kubelets = ItCluster.kubelets(cp, nodes);
    if (gpus > 0) {
      ItCluster.giveGpus(admin, names, gpus);
    }
  }

  /** A finalizer of the tests' own: the API server keeps the pod, terminating, until it is off. */
  static final String HOLD = "gpu-operator.test/hold";

  /** Puts {@link #HOLD} on a pod ({@code on}) or takes it off. */
  static void hold(String namespace, String pod, boolean on) {
    admin
        .pods()
        .inNamespace(namespace)
        .withName(pod)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            on
                ? "{\"metadata\":{\"finalizers\":[\"" + HOLD + "\"]}}"
                : "{\"metadata\":{\"finalizers\":null}}");
  }

  static Node node(String name) {
    return admin.nodes().withName(name).get();
  }

  /**
   * Successful evictions since the audit log's {@code mark} by clients whose user agent starts with
   * {@code userAgent}, per pod.
   */
  static Map<String, Long> evictionsSince(long mark, String userAgent) {
    return audit.writesSince(mark, userAgent).stream()
        .filter(w -> "eviction".equals(w.sub()) && w.code() == 201)
        .collect(Collectors.groupingBy(AuditLog.Write::name, Collectors.counting()));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    ItCluster.closeAll(operator == null ? null : operator.get(), kubelets, cp);
  }
}

package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedNodes;
import java.util.List;
import java.util.function.Supplier;
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

  @AfterAll
  static void stopCluster() throws Exception {
    ItCluster.closeAll(operator == null ? null : operator.get(), kubelets, cp);
  }
}

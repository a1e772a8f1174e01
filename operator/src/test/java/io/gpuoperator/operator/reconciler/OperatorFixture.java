package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;

/**
 * What an operator IT starts from: the CRDs on the control plane, a fresh operator namespace, the
 * API server's audit log (to count the operator's writes) and one operator running in it.
 */
record OperatorFixture(
    ControlPlane cp, KubernetesClient admin, String ns, AuditLog audit, OperatorInstance operator) {

  static OperatorFixture start(ControlPlane cp) throws Exception {
    KubernetesClient admin = cp.client();
    Crds.apply(admin);
    String ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
    AuditLog audit = new AuditLog(cp.auditLog());
    OperatorInstance operator = OperatorInstance.on(cp, ns, "main").start();
    return new OperatorFixture(cp, admin, ns, audit, operator);
  }
}

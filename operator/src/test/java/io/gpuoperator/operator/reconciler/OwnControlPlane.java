package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An IT class's own control plane with the controller manager (the DaemonSet controller and garbage
 * collection, which the shared {@link ControlPlaneExtension} does not run) and the only operator on
 * it. Before the class's tests: the CRDs, a fresh operator namespace, what the test creates first
 * ({@code before}: nodes, say), then the operator (no leader election, this project's agents).
 * After them, the operator and the control plane are stopped. Register it with
 * {@code @RegisterExtension} on a static field.
 */
final class OwnControlPlane implements BeforeAllCallback, AfterAllCallback {
  private final String identity;
  private final Consumer<KubernetesClient> before;
  private ControlPlane cp;
  private String ns;
  private OperatorInstance operator;

  /**
   * @param identity the operator's lease holder and user-agent suffix
   * @param before what is created before the operator starts, with the admin client
   */
  OwnControlPlane(String identity, Consumer<KubernetesClient> before) {
    this.identity = identity;
    this.before = before;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    cp = ControlPlane.builder().controllerManager(true).start();
    Crds.apply(cp.client());
    ns = ControlPlaneExtension.newNamespace(cp.client(), "gpu-operator");
    before.accept(cp.client());
    operator =
        OperatorInstance.on(cp, ns, identity)
            .withoutLeaderElection()
            .agents(Policies.agents())
            .start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    ItCluster.closeAll(operator, cp);
  }

  /** The admin client (do not close it). */
  KubernetesClient admin() {
    return cp.client();
  }

  /** The operator's namespace. */
  String ns() {
    return ns;
  }
}

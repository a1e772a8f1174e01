package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The scheduling ITs' cluster: a real API server with the DaemonSet controller and the scheduler,
 * an operator namespace, and ready nodes without a kubelet; the operator's steps that place
 * operands (the node label rules' patch, the rendered objects) are done here by hand, so a test
 * sees the scheduler's verdict on exactly what the operator would write.
 */
final class SchedulingCluster implements AutoCloseable {
  private final ControlPlane cp;
  private final String namespace;

  private SchedulingCluster(ControlPlane cp, String namespace) {
    this.cp = cp;
    this.namespace = namespace;
  }

  /** Starts the control plane and creates {@code namespace}. */
  static SchedulingCluster start(String namespace) throws Exception {
    ControlPlane cp =
        ControlPlane.builder()
            .controllers(ControlPlane.GC_CONTROLLERS + ",daemonset")
            .scheduler(true)
            .start();
    cp.client()
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    return new SchedulingCluster(cp, namespace);
  }

  KubernetesClient client() {
    return cp.client();
  }

  ControlPlane controlPlane() {
    return cp;
  }

  /** A schedulable node with {@code labels}: Ready, with room for pods, and no not-ready taint. */
  Node readyNode(String name, Map<String, String> labels) {
    KubernetesClient client = client();
    client.nodes().resource(Policies.node(name, labels)).create();
    Map<String, Quantity> capacity =
        Map.of(
            "pods", new Quantity("110"), "cpu", new Quantity("8"), "memory", new Quantity("32Gi"));
    Node withStatus =
        new NodeBuilder(client.nodes().withName(name).get())
            .editOrNewStatus()
            .withCapacity(capacity)
            .withAllocatable(capacity)
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withReason("Test")
            .endCondition()
            .endStatus()
            .build();
    client.nodes().resource(withStatus).updateStatus();
    // The TaintNodesByCondition admission plugin taints new nodes not-ready; without a kubelet and
    // node lifecycle controller nobody lifts it, and DaemonSet pods do not tolerate it.
    return client
        .nodes()
        .withName(name)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editSpec()
                    .withTaints(
                        n.getSpec().getTaints() == null
                            ? List.of()
                            : n.getSpec().getTaints().stream()
                                .filter(t -> !t.getKey().equals("node.kubernetes.io/not-ready"))
                                .toList())
                    .endSpec()
                    .build());
  }

  /** Patches every node with the node label rules' change for {@code policy}, as the operator. */
  void applyLabelRules(ClusterPolicy policy) {
    for (Node n : client().nodes().list().getItems()) {
      var change = NodeLabelRules.change(n, policy);
      if (!change.isEmpty()) {
        client()
            .nodes()
            .withName(n.getMetadata().getName())
            .patch(
                new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).build(),
                change.toMergePatchJson());
      }
    }
  }

  /**
   * Creates every typed object the policy renders for {@code facts} (custom resources left out: no
   * CRDs here) and returns the names of the DaemonSets among them.
   */
  Set<String> createOperands(ClusterPolicy policy, ClusterFacts facts) {
    var config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", namespace));
    Set<String> daemonSets = new TreeSet<>();
    for (RenderedOperand op : Operands.renderAll(policy, facts, config)) {
      for (HasMetadata o : op.objects()) {
        if (o instanceof GenericKubernetesResource) {
          continue;
        }
        client().resource(o).create();
        if (o instanceof DaemonSet) {
          daemonSets.add(o.getMetadata().getName());
        }
      }
    }
    return daemonSets;
  }

  @Override
  public void close() {
    cp.close();
  }
}

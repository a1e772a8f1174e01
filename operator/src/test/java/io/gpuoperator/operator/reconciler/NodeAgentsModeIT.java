package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Switching node-agents mode on and off against a real API server: with {@code NODE_AGENTS=true}
 * the operator creates {@code nvidia-node-agents} and deletes the hosted agents' own DaemonSets,
 * and the hosted operands' status follows its readiness; with the mode off again it is deleted and
 * the agents' DaemonSets come back.
 */
@ExtendWith(ControlPlaneExtension.class)
class NodeAgentsModeIT {
  static final List<String> HOSTED =
      List.of(
          "nvidia-device-plugin-daemonset",
          "gpu-feature-discovery",
          "nvidia-dcgm-exporter",
          "nvidia-mig-manager");

  @Test
  void switchingTheModeReplacesTheAgentsDaemonSetsAndBack(ControlPlane cp) throws Exception {
    KubernetesClient admin = cp.client();
    Crds.apply(admin);
    String ns = ControlPlaneExtension.newNamespace(admin, "node-agents");
    String node = "na-mode-gpu";
    admin.nodes().resource(ItCluster.node(node, ItCluster.NFD_GPU)).create();
    ClusterPolicy policy = new ClusterPolicy();
    policy.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
    policy.setSpec(new ClusterPolicySpec());
    try {
      try (OperatorInstance off = start(cp, ns, false)) {
        admin.resource(policy).create();
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(() -> assertThat(names(admin, ns)).containsAll(HOSTED));
        assertThat(names(admin, ns)).doesNotContain("nvidia-node-agents");
      }
      try (OperatorInstance on = start(cp, ns, true)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () ->
                    assertThat(names(admin, ns))
                        .contains("nvidia-node-agents", "nvidia-operator-validator")
                        .doesNotContainAnyElementsOf(HOSTED));
        // Each hosted operand reports the node-agents DaemonSet: not ready until it is.
        DaemonSet na =
            admin.apps().daemonSets().inNamespace(ns).withName("nvidia-node-agents").get();
        assertThat(operandState(admin, "device-plugin")).isEqualTo(State.NOT_READY);
        ItCluster.markReady(admin, na, List.of(node));
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () -> {
                  assertThat(operandState(admin, "device-plugin")).isEqualTo(State.READY);
                  assertThat(operandState(admin, "mig-manager")).isEqualTo(State.READY);
                  assertThat(operandState(admin, "node-agents")).isEqualTo(State.READY);
                });
      }
      try (OperatorInstance offAgain = start(cp, ns, false)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(
                () ->
                    assertThat(names(admin, ns))
                        .containsAll(HOSTED)
                        .doesNotContain("nvidia-node-agents"));
      }
    } finally {
      admin.resources(ClusterPolicy.class).withName("cluster-policy").delete();
      admin.nodes().withName(node).delete();
      admin.namespaces().withName(ns).delete();
    }
  }

  static OperatorInstance start(ControlPlane cp, String ns, boolean nodeAgents)
      throws java.io.IOException {
    return OperatorInstance.on(cp, ns, "node-agents-" + nodeAgents)
        .withoutLeaderElection()
        .env(Map.of("NODE_AGENTS", String.valueOf(nodeAgents)))
        .agents(Policies.agents())
        .start();
  }

  static List<String> names(KubernetesClient admin, String ns) {
    return admin.apps().daemonSets().inNamespace(ns).list().getItems().stream()
        .map(d -> d.getMetadata().getName())
        .toList();
  }

  static State operandState(KubernetesClient admin, String operand) {
    ClusterPolicy p = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
    if (p.getStatus() == null || p.getStatus().operands == null) {
      return null;
    }
    return p.getStatus().operands.stream()
        .filter(o -> o.name.equals(operand))
        .map(o -> o.state)
        .findFirst()
        .orElse(null);
  }
}

package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * GPU fault remediation's switches on a real API server, the operator in process: with dryRun a
 * faulty node is told about once (an Event) and left as it is, and the ClusterPolicy reports the
 * dry run; turned on, the node climbs the ladder and the metrics count it; turned off, it is given
 * back (taint, cordon, label and annotations removed) and the ClusterPolicy condition goes.
 */
class RemediationDryRunIT {
  static final String NODE = "dry-gpu";

  @Test
  void aDryRunOnlyTellsTurnedOnItActsTurnedOffItGivesBack() throws Exception {
    try (ControlPlane cp = ControlPlane.builder().start()) {
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      String ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
      admin.nodes().resource(ItCluster.node(NODE, ItCluster.NFD_GPU)).create();
      condition(admin, "Ready", "True", "KubeletReady", "ready");
      try (OperatorInstance operator =
          OperatorInstance.on(cp, ns, "dry").withoutLeaderElection().start()) {
        ClusterPolicy policy = ItCluster.driverOnlyPolicy("autoUpgrade: false\n");
        policy.getSpec().remediation = new RemediationSpec();
        policy.getSpec().remediation.enabled = true;
        policy.getSpec().remediation.dryRun = true;
        admin.resource(policy).create();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    "true"
                        .equals(
                            node(admin).getMetadata().getLabels().get("nvidia.com/gpu.present")));

        condition(admin, GpuFaultContract.XID, "True", "FatalXid", "GPU-0: XID 119");
        Event told =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> events(admin, "GpuRemediationDryRun"), l -> !l.isEmpty())
                .get(0);
        assertThat(told.getMessage())
            .startsWith("dry run, nothing changed: would move to tainted")
            .contains("nvidia.com/gpu-fault=GpuXidError:NoSchedule", "XID 119");
        Condition dry =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () -> paused(admin),
                    c -> c.isPresent() && c.get().getMessage().startsWith("1 of 1"))
                .orElseThrow();
        assertThat(dry.getStatus()).isEqualTo("False");
        assertThat(dry.getReason()).isEqualTo("DryRun");
        assertThat(dry.getMessage()).endsWith("(dry run: nodes are not changed)");
        // Another pass (a node change) tells nothing new and changes nothing.
        admin
            .nodes()
            .withName(NODE)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"gpu-operator.test/poke\":\"1\"}}}");
        Thread.sleep(3_000);
        assertThat(events(admin, "GpuRemediationDryRun")).hasSize(1);
        Node untouched = node(admin);
        assertThat(ourTaint(untouched)).isNull();
        assertThat(untouched.getSpec().getUnschedulable()).isNotEqualTo(true);
        assertThat(untouched.getMetadata().getLabels()).doesNotContainKey(RemediationKeys.STATE);

        admin
            .resources(ClusterPolicy.class)
            .withName("cluster-policy")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"remediation\":{\"dryRun\":false}}}");
        // No GPU pod to evict and no plugin to answer: it waits for the reset.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> state(admin) == RemediationState.RESET_REQUESTED);
        Node acted = node(admin);
        assertThat(acted.getSpec().getUnschedulable()).isTrue();
        assertThat(acted.getSpec().getTaints())
            .anyMatch(
                t ->
                    t.getKey().equals(RemediationKeys.TAINT) && t.getValue().equals("GpuXidError"));
        assertThat(acted.getMetadata().getAnnotations())
            .containsKey(RemediationKeys.RESET_REQUESTED);
        String metrics =
            ClusterPolicyReconcilerIT.get(
                "http://127.0.0.1:" + operator.operator.metricsPort() + "/metrics");
        assertThat(metrics.lines())
            .anyMatch(
                l ->
                    l.startsWith("gpu_operator_remediation_actions_total{")
                        && l.contains("fault=\"GpuXidError\"")
                        && l.contains("action=\"tainted\"")
                        && l.endsWith(" 1.0"))
            .anyMatch(
                l -> l.equals("gpu_operator_remediation_nodes{state=\"reset-requested\"} 1.0"))
            .anyMatch(l -> l.equals("gpu_operator_remediation_enabled 1.0"))
            .anyMatch(l -> l.equals("gpu_operator_remediation_circuit_breaker_open 0.0"));

        admin
            .resources(ClusterPolicy.class)
            .withName("cluster-policy")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"remediation\":{\"enabled\":false}}}");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> state(admin) == RemediationState.NONE && ourTaint(node(admin)) == null);
        Node given = node(admin);
        assertThat(given.getSpec().getTaints())
            .anyMatch(t -> t.getKey().equals("node.kubernetes.io/not-ready"));
        assertThat(given.getSpec().getUnschedulable()).isNotEqualTo(true);
        assertThat(given.getMetadata().getAnnotations())
            .doesNotContainKeys(
                RemediationKeys.RESET_REQUESTED,
                RemediationKeys.FAULT,
                RemediationKeys.INITIAL_UNSCHEDULABLE,
                RemediationKeys.STEP_START);
        assertThat(events(admin, "GpuRemediationOff")).hasSize(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> paused(admin).isEmpty());
      }
    }
  }

  static Node node(KubernetesClient admin) {
    return admin.nodes().withName(NODE).get();
  }

  static String ourTaint(Node n) {
    return ItCluster.remediationTaint(n);
  }

  static RemediationState state(KubernetesClient admin) {
    return ItCluster.remediationState(node(admin));
  }

  static List<Event> events(KubernetesClient admin, String reason) {
    return admin
        .v1()
        .events()
        .inNamespace(ReconcilerKeys.EVENTS_NAMESPACE)
        .list()
        .getItems()
        .stream()
        .filter(e -> NODE.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  static Optional<Condition> paused(KubernetesClient admin) {
    ClusterPolicy p = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
    return p.getStatus() == null || p.getStatus().conditions == null
        ? Optional.empty()
        : p.getStatus().conditions.stream()
            .filter(c -> c.getType().equals("RemediationPaused"))
            .findFirst();
  }

  static void condition(
      KubernetesClient admin, String type, String status, String reason, String message) {
    NodeConditions.write(admin, NODE, type, status, reason, message);
  }
}

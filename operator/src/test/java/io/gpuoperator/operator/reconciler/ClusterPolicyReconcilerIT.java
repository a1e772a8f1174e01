package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator against a real API server: a policy drives operands and node labels, status follows
 * DaemonSet readiness, operands are removed and recreated, an invalid policy changes nothing, and
 * an idle operator writes nothing. The steps build on each other (one operator, one cluster).
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterPolicyReconcilerIT {
  static final String POLICY = "cluster-policy";
  static final List<String> GPU_NODES = List.of("it-gpu-a", "it-gpu-b");
  static final String CPU_NODE = "it-cpu-c";

  static ControlPlane cp;
  static KubernetesClient admin;
  static String ns;
  static OperatorInstance operator;
  static AuditLog audit;

  @BeforeAll
  static void start(ControlPlane controlPlane) throws Exception {
    cp = controlPlane;
    admin = cp.client();
    Crds.apply(admin);
    ns = ControlPlaneExtension.newNamespace(admin, "gpu-operator");
    audit = new AuditLog(cp.auditLog());
    operator =
        OperatorInstance.start(cp, ns, "main", new TestOperands(), new TestPlanner(), Map.of());
    for (String n : GPU_NODES) {
      admin.nodes().resource(ItCluster.node(n, ItCluster.NFD_GPU)).create();
    }
    admin.nodes().resource(ItCluster.node(CPU_NODE, ItCluster.NFD_CPU)).create();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    admin.resources(ClusterPolicy.class).delete();
    for (String n : GPU_NODES) {
      admin.nodes().withName(n).delete();
    }
    admin.nodes().withName(CPU_NODE).delete();
  }

  static ClusterPolicy policy() {
    return admin.resources(ClusterPolicy.class).withName(POLICY).get();
  }

  static List<DaemonSet> daemonSets() {
    return admin.apps().daemonSets().inNamespace(ns).list().getItems();
  }

  static void markAllReady() {
    for (DaemonSet ds : daemonSets()) {
      ItCluster.markReady(admin, ds, GPU_NODES);
    }
  }

  @Test
  @Order(1)
  void samplePolicyCreatesOperandsLabelsNodesAndIsReadyOnlyWhenDaemonSetsAre() {
    admin.resource(ItCluster.samplePolicy(POLICY)).create();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(daemonSets())
                    .extracting(d -> d.getMetadata().getName())
                    .containsExactlyInAnyOrder(
                        "nvidia-driver-daemonset", "nvidia-device-plugin-daemonset"));
    DaemonSet driver =
        admin.apps().daemonSets().inNamespace(ns).withName("nvidia-driver-daemonset").get();
    assertThat(driver.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo(POLICY));
    assertThat(driver.getMetadata().getAnnotations()).containsKey(ReconcilerKeys.HASH_ANNOTATION);

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (String n : GPU_NODES) {
                Node node = admin.nodes().withName(n).get();
                assertThat(node.getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.present", "true");
                assertThat(node.getSpec().getTaints())
                    .anyMatch(t -> t.getKey().equals("nvidia.com/gpu"));
              }
            });
    Node cpu = admin.nodes().withName(CPU_NODE).get();
    assertThat(cpu.getMetadata().getLabels().keySet()).noneMatch(k -> k.startsWith("nvidia.com/"));
    // The API server's TaintNodesByCondition plugin adds node.kubernetes.io/not-ready; ours: none.
    assertThat(cpu.getSpec().getTaints()).noneMatch(t -> t.getKey().startsWith("nvidia.com/"));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ClusterPolicy p = policy();
              assertThat(p.getStatus()).isNotNull();
              assertThat(p.getStatus().state).isEqualTo(State.NOT_READY);
              assertThat(PolicyStatusModel.ready(p.getStatus()).getReason())
                  .isEqualTo(Conditions.OPERAND_NOT_READY);
              assertThat(notReady(p)).containsExactlyInAnyOrder("driver", "device-plugin");
            });

    // One DaemonSet ready: the status names only the other.
    ItCluster.markReady(
        admin,
        admin.apps().daemonSets().inNamespace(ns).withName("nvidia-driver-daemonset").get(),
        GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(notReady(policy())).containsExactly("device-plugin"));
    assertThat(policy().getStatus().state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(policy().getStatus()).getMessage())
        .contains("device-plugin");

    ItCluster.markReady(
        admin,
        admin.apps().daemonSets().inNamespace(ns).withName("nvidia-device-plugin-daemonset").get(),
        GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(policy().getStatus().state).isEqualTo(State.READY));
    ClusterPolicy ready = policy();
    assertThat(ready.getStatus().observedGeneration).isEqualTo(ready.getMetadata().getGeneration());
    assertThat(ready.getStatus().operands)
        .filteredOn(o -> o.name.equals("driver"))
        .singleElement()
        .satisfies(o -> assertThat(o.nodesReady).isEqualTo(2))
        .satisfies(o -> assertThat(o.nodesDesired).isEqualTo(2));
  }

  static List<String> notReady(ClusterPolicy p) {
    return p.getStatus().operands == null
        ? List.of()
        : p.getStatus().operands.stream()
            .filter(o -> o.state != State.READY)
            .map(o -> o.name)
            .collect(Collectors.toList());
  }
}

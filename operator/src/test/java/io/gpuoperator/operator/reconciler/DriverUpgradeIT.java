package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuoperator.api.Informers;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.upgrade.KubernetesNodeActions;
import io.gpuoperator.operator.upgrade.NodeActions;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeState;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.kubelet.BehaviourOverride;
import io.gpuoperator.sim.kubelet.DeclaredBehaviour;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A driver upgrade on 10 simulated GPU nodes against a real control plane (the DaemonSet,
 * ReplicaSet and disruption controllers and the scheduler of kube-controller-manager and
 * kube-scheduler; simulated kubelets run the pods): the real operator, {@code maxParallelUpgrades:
 * 2}, a node the user cordoned, a node whose new driver crashes, GPU workloads evicted through
 * {@code policy/v1}, and an operator restart half way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DriverUpgradeIT extends SimulatedGpuCluster {
  static final List<String> NODES = IntStream.range(0, 10).mapToObj(i -> "gpu-" + i).toList();
  static final String USER_CORDONED = "gpu-3";
  static final String BROKEN = "gpu-7";
  static final String NEW_VERSION = "999.1";

  static OperatorInstance operator;
  static int restarts;

  @BeforeAll
  static void start() throws Exception {
    List<NodeDescription> nodes = new ArrayList<>();
    for (String n : NODES) {
      NodeDescription d = NodeDescription.gpuNode(n, "H100-SXM5-80GB", 8);
      if (n.equals(BROKEN)) {
        // The new driver does not come up on this node.
        d =
            d.withOverrides(
                List.of(
                    new BehaviourOverride(
                        "driver:" + NEW_VERSION,
                        null,
                        null,
                        DeclaredBehaviour.fails(Duration.ofSeconds(1), 1))));
      }
      nodes.add(d);
    }
    // No device plugin in this test: each node gets its 8 GPUs directly.
    startCluster(nodes, 8, () -> operator);
    operator = startOperator();
  }

  static OperatorInstance startOperator() throws Exception {
    return OperatorInstance.on(cp, ns, "upgrade-" + ++restarts).withoutLeaderElection().start();
  }

  static ClusterPolicy policy() {
    return ItCluster.driverOnlyPolicy(
        """
        autoUpgrade: true
        maxParallelUpgrades: 2
        maxUnavailable: "50%"
        validationTimeoutSeconds: 40
        podDeletion:
          timeoutSeconds: 120
        """);
  }

  static Map<String, Node> nodes() {
    return admin.nodes().list().getItems().stream()
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
  }

  static String state(Node n) {
    return n.getMetadata().getLabels() == null
        ? null
        : n.getMetadata().getLabels().get(UpgradeKeys.STATE);
  }

  static List<Pod> running(String app) {
    return admin.pods().inNamespace(work).withLabel("app", app).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .toList();
  }

  @Test
  @Order(1)
  void theClusterComesUpWithEveryNodeUpgradeDone() {
    admin.resource(policy()).create();
    admin.resource(GpuWorkloads.onePerNode(work, "train", NODES.size(), true, true)).create();
    admin.resource(GpuWorkloads.onePerNode(work, "web", 2, false, true)).create();
    await()
        .atMost(Duration.ofMinutes(4))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              for (Node n : nodes().values()) {
                assertThat(state(n)).as(n.getMetadata().getName()).isEqualTo("upgrade-done");
                assertThat(n.getMetadata().getAnnotations())
                    .containsEntry(UpgradeKeys.ENABLED, "true");
              }
              assertThat(running("train")).hasSize(NODES.size());
              assertThat(running("web")).hasSize(2);
              assertThat(
                      admin.pods().inNamespace(ns).list().getItems().stream()
                          .filter(DriverUpgradeIT::ready)
                          .count())
                  .as("driver and validator pods ready")
                  .isEqualTo(2L * NODES.size());
            });
  }

  static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  @Test
  @Order(2)
  void evictionGoesThroughPolicyV1AndHonoursADisruptionBudget() {
    NodeActions actions = new KubernetesNodeActions(admin);
    Pod lonely =
        admin
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("guarded")
                    .withNamespace(work)
                    .addToLabels("app", "guarded")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("gpu-0")
                    .withAutomountServiceAccountToken(false)
                    .withTerminationGracePeriodSeconds(1L)
                    .addNewContainer()
                    .withName("c")
                    .withImage("registry.example/guarded:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    admin
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("guarded")
                .withNamespace(work)
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new io.fabric8.kubernetes.api.model.IntOrString(1))
                .withNewSelector()
                .addToMatchLabels("app", "guarded")
                .endSelector()
                .endSpec()
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(running("guarded")).hasSize(1));
    // The disruption controller keeps the budget at 0 allowed: eviction is refused (429).
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        admin
                            .policy()
                            .v1()
                            .podDisruptionBudget()
                            .inNamespace(work)
                            .withName("guarded")
                            .get()
                            .getStatus()
                            .getObservedGeneration())
                    .isNotNull());
    assertThat(actions.evict(lonely)).isEqualTo(NodeActions.Eviction.BLOCKED);
    assertThat(admin.pods().inNamespace(work).withName("guarded").get()).isNotNull();
    admin.policy().v1().podDisruptionBudget().inNamespace(work).withName("guarded").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> actions.evict(lonely) == NodeActions.Eviction.EVICTED);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> actions.evict(lonely) == NodeActions.Eviction.GONE);
  }

  @Test
  @Order(3)
  void aLabelOnlyChangeRestartsDriverPodsWithoutCordonOrEviction() {
    long mark = audit.mark();
    Map<String, String> trainPods =
        running("train").stream()
            .collect(
                Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
    Map<String, String> driverPods = driverPodsByNode();
    List<String> cordoned = new java.util.concurrent.CopyOnWriteArrayList<>();
    SharedIndexInformer<Node> watch =
        admin
            .nodes()
            .inform(
                Informers.onChange(
                    n -> {
                      if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
                        cordoned.add(n.getMetadata().getName());
                      }
                    }));
    try {
      // daemonsets.labels reach the driver's pod template but not what it installs.
      admin
          .resources(ClusterPolicy.class)
          .withName("cluster-policy")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"daemonsets\":{\"labels\":{\"team\":\"gpu\"}}}}");
      await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                Map<String, String> now = driverPodsByNode();
                assertThat(now).hasSize(NODES.size());
                for (String n : NODES) {
                  assertThat(now.get(n)).as(n).isNotEqualTo(driverPods.get(n));
                }
                assertThat(
                        admin
                            .pods()
                            .inNamespace(ns)
                            .withLabel("team", "gpu")
                            .list()
                            .getItems()
                            .stream()
                            .filter(p -> p.getMetadata().getName().startsWith("nvidia-driver"))
                            .filter(DriverUpgradeIT::ready)
                            .count())
                    .isEqualTo(NODES.size());
                for (Node n : nodes().values()) {
                  assertThat(state(n)).as(n.getMetadata().getName()).isEqualTo("upgrade-done");
                }
              });
    } finally {
      watch.close();
    }
    assertThat(cordoned).isEmpty();
    assertThat(
            audit.writesSince(mark, "gpu-operator-it/upgrade-").stream()
                .filter(w -> "eviction".equals(w.sub())))
        .isEmpty();
    // The same GPU pods still run.
    assertThat(
            running("train").stream()
                .collect(
                    Collectors.toMap(
                        p -> p.getMetadata().getName(), p -> p.getMetadata().getUid())))
        .isEqualTo(trainPods);
  }

  /** The live driver pod's UID on each node. */
  static Map<String, String> driverPodsByNode() {
    return admin
        .pods()
        .inNamespace(ns)
        .withLabel("app", "nvidia-driver-daemonset")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .collect(
            Collectors.toMap(
                p -> p.getSpec().getNodeName(), p -> p.getMetadata().getUid(), (a, b) -> a));
  }

  @Test
  @Order(4)
  void aNewDriverVersionRollsOutTwoNodesAtATimeAcrossAnOperatorRestart() throws Exception {
    admin
        .nodes()
        .withName(USER_CORDONED)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    long mark = audit.mark();

    // Every node event: how many nodes are between cordon and uncordon right now.
    Map<String, UpgradeState> states = new ConcurrentHashMap<>();
    Set<String> finished = ConcurrentHashMap.newKeySet();
    AtomicInteger maxInProgress = new AtomicInteger();
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    SharedIndexInformer<Node> watch =
        admin
            .nodes()
            .inform(
                Informers.onEach(
                    n -> {
                      String name = n.getMetadata().getName();
                      UpgradeState s = UpgradeState.of(state(n));
                      UpgradeState before = states.put(name, s);
                      if (before != null && before.inProgress() && s == UpgradeState.UPGRADE_DONE) {
                        finished.add(name);
                      }
                      int now =
                          (int) states.values().stream().filter(UpgradeState::inProgress).count();
                      maxInProgress.accumulateAndGet(now, Math::max);
                      if (now > 2) {
                        violations.add(now + " nodes in progress at " + states);
                      }
                    }));
    try {
      ItCluster.upgradeDriverTo(admin, NEW_VERSION);

      // Half way, the operator restarts: it carries on from the node labels.
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> finished.size() >= 3);
      operator.close();
      operator = startOperator();

      await()
          .atMost(Duration.ofMinutes(8))
          .pollInterval(Duration.ofSeconds(2))
          .untilAsserted(
              () -> {
                Map<String, Node> all = nodes();
                for (String n : NODES) {
                  String expected = n.equals(BROKEN) ? "upgrade-failed" : "upgrade-done";
                  assertThat(state(all.get(n))).as(n).isEqualTo(expected);
                }
                assertThat(finished).hasSize(NODES.size() - 1);
              });
    } finally {
      watch.close();
    }
    assertThat(violations).isEmpty();
    assertThat(maxInProgress.get()).isEqualTo(2);

    Map<String, Node> all = nodes();
    assertThat(all.get(USER_CORDONED).getSpec().getUnschedulable()).isTrue();
    assertThat(all.get(BROKEN).getSpec().getUnschedulable())
        .as("a failed node stays cordoned")
        .isTrue();
    for (String n : NODES) {
      if (!n.equals(USER_CORDONED) && !n.equals(BROKEN)) {
        assertThat(all.get(n).getSpec().getUnschedulable()).as(n).isNotEqualTo(Boolean.TRUE);
      }
      assertThat(all.get(n).getMetadata().getLabels()).doesNotContainValue(UpgradeKeys.PAUSED);
    }
    assertThat(all.get(BROKEN).getMetadata().getAnnotations().get(UpgradeKeys.FAILURE_REASON))
        .contains("validation");
    assertThat(
            admin.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(BROKEN))
                .filter(e -> "DriverUpgradeFailed".equals(e.getReason())))
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("driver pod").contains(ns));
    // Every driver pod runs the new version.
    assertThat(
            admin
                .pods()
                .inNamespace(ns)
                .withLabel("app", "nvidia-driver-daemonset")
                .list()
                .getItems())
        .hasSize(NODES.size())
        .allSatisfy(
            p ->
                assertThat(p.getSpec().getContainers().get(0).getImage())
                    .isEqualTo("nvcr.io/nvidia/driver:" + NEW_VERSION + "-ubuntu22.04"));

    // Each GPU pod was evicted once, across the restart; the CPU pods never.
    Map<String, Long> perPod = evictionsSince(mark, "gpu-operator-it/upgrade-");
    assertThat(perPod.values()).allMatch(c -> c == 1);
    assertThat(perPod.keySet()).allMatch(name -> name.startsWith("train-"));
    assertThat(perPod).hasSizeGreaterThanOrEqualTo(NODES.size());
    assertThat(
            audit.writesSince(mark, "gpu-operator-it/upgrade-").stream()
                .filter(w -> "pods".equals(w.resource()) && "delete".equals(w.verb()))
                .map(AuditLog.Write::name))
        .as("the operator deletes only driver pods")
        .allMatch(name -> name.startsWith("nvidia-driver-daemonset-"));

    var progress =
        admin
            .resources(ClusterPolicy.class)
            .withName("cluster-policy")
            .get()
            .getStatus()
            .driverUpgrade;
    assertThat(progress.done).isEqualTo(NODES.size() - 1);
    assertThat(progress.failed).isEqualTo(1);
    assertThat(progress.message).contains(BROKEN);
  }
}

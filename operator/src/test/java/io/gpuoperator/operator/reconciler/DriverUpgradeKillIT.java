package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.kubelet.BehaviourOverride;
import io.gpuoperator.sim.kubelet.DeclaredBehaviour;
import io.gpuoperator.sim.kubelet.KubeletConstants;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 33 finding 7: the operator, its own JVM, is SIGKILLed at each step of a driver upgrade
 * between cordon and uncordon and started again; from the node labels it carries on, and the API
 * server's audit log shows that no pod was evicted twice and no driver pod deleted twice, the node
 * the upgrade cordoned ends uncordoned and the node a human had cordoned stays cordoned.
 *
 * <p>Two simulated GPU nodes on a real control plane (DaemonSet, ReplicaSet and disruption
 * controllers, scheduler): {@value #OURS}, schedulable, and {@value #HUMANS}, cordoned by a human
 * before the upgrade. Each step is held, on both nodes, by something the test lets go of after the
 * kill, so that the kill lands in that step and nowhere else:
 *
 * <ol>
 *   <li>after cordon: a pod the upgrade's {@code waitForCompletion} waits for;
 *   <li>after eviction, before the driver restarts: a finalizer on each evicted GPU pod;
 *   <li>after the old driver pod was deleted, before the new one exists: a finalizer on it;
 *   <li>before uncordon: the new driver pod waits for a marker file before it becomes ready.
 * </ol>
 *
 * After each restart the new process completes two upgrade passes (its reconcile counter) before
 * the hold is released, so each restarted operator had its chance to evict, delete or uncordon
 * again.
 */
class DriverUpgradeKillIT extends SimulatedGpuCluster {
  static final String OURS = "kill-ours";
  static final String HUMANS = "kill-humans";
  static final List<String> NODES = List.of(OURS, HUMANS);
  static final String NEW_VERSION = "999.7";
  static final String JOB = "hold-job";
  static final String RELEASE_DRIVER = "release-new-driver";

  static RestartedOperator operator;
  static long upgradeMark;

  /** The GPU pods on each node before the upgrade, by node. */
  static Map<String, String> gpuPods;

  /** The old driver pods, by node. */
  static Map<String, String> oldDrivers;

  @BeforeAll
  static void start() throws Exception {
    // The new driver's container starts once the test writes its marker (step 4's hold), then
    // becomes ready with the file NVIDIA's driver container leaves for the validator.
    DeclaredBehaviour heldDriver =
        DeclaredBehaviour.runs(Duration.ZERO)
            .withWaitFor(List.of(RELEASE_DRIVER))
            .withFiles(
                Map.of(
                    KubeletConstants.HOST_VALIDATIONS
                        + "/"
                        + KubeletConstants.DRIVER_CONTAINER_READY,
                    "GDRCOPY_ENABLED: false\nGDS_ENABLED: false\nGPU_DIRECT_RDMA_ENABLED: false\n"));
    List<NodeDescription> nodes = new ArrayList<>();
    for (String n : NODES) {
      nodes.add(
          NodeDescription.gpuNode(n, "H100-SXM5-80GB", 8)
              .withOverrides(
                  List.of(new BehaviourOverride("driver:" + NEW_VERSION, null, null, heldDriver))));
    }
    // No device plugin in this test: each node gets its 8 GPUs directly.
    startCluster(nodes, 8, () -> operator);
    operator = RestartedOperator.start(cp.kubeconfig(), ns, "DriverUpgradeKillIT");
  }

  /** Kills the operator, checks what the kill left, starts another and lets it run two passes. */
  static void killAndRestart(String step) throws Exception {
    operator.killAndStart(step).awaitPasses(2);
  }

  static ClusterPolicy policy() {
    // 100%: the human's cordon counts as unavailable, and both nodes upgrade at once.
    return ItCluster.driverOnlyPolicy(
        """
        autoUpgrade: true
        maxParallelUpgrades: 0
        maxUnavailable: "100%"
        validationTimeoutSeconds: 600
        waitForCompletion:
          podSelector: app=JOB
        podDeletion:
          timeoutSeconds: 600
        """
            .replace("JOB", JOB));
  }

  /** One upgrade, killed at each step in turn: a step fails, the ones after it cannot run. */
  @Test
  void killedAtEachStepOfADriverUpgrade() throws Exception {
    theClusterComesUpUpgradeDone();
    killedAfterCordon();
    killedAfterEvictionBeforeTheDriverRestarts();
    killedAfterTheOldDriverPodWasDeleted();
    killedBeforeUncordon();
  }

  void theClusterComesUpUpgradeDone() {
    admin.resource(policy()).create();
    admin.resource(GpuWorkloads.onePerNode(work, "train", NODES.size(), true, false)).create();
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              for (String n : NODES) {
                assertThat(state(n)).as(n).isEqualTo("upgrade-done");
              }
              assertThat(livePods(work, "app=train").keySet())
                  .containsExactlyInAnyOrderElementsOf(NODES);
              assertThat(livePods(ns, UpgradeKeys.COMPONENT + "=" + UpgradeKeys.DRIVER_COMPONENT))
                  .hasSize(NODES.size());
            });
    gpuPods = livePods(work, "app=train");
    oldDrivers = livePods(ns, UpgradeKeys.COMPONENT + "=" + UpgradeKeys.DRIVER_COMPONENT);
    // The holds of steps 2 and 3: the API server keeps these pods, terminating, until the test
    // removes the finalizer.
    gpuPods.values().forEach(pod -> hold(work, pod, true));
    oldDrivers.values().forEach(pod -> hold(ns, pod, true));
    // The hold of step 1: a pod the upgrade waits for on each node.
    for (String n : NODES) {
      admin
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(JOB + "-" + n)
                  .withNamespace(work)
                  .addToLabels("app", JOB)
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName(n)
                  .withTerminationGracePeriodSeconds(0L)
                  .withAutomountServiceAccountToken(false)
                  .withContainers(
                      new ContainerBuilder()
                          .withName("job")
                          .withImage("registry.example/job:1")
                          .build())
                  .endSpec()
                  .build())
          .create();
    }
  }

  void killedAfterCordon() throws Exception {
    admin
        .nodes()
        .withName(HUMANS)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    upgradeMark = audit.mark();
    ItCluster.upgradeDriverTo(admin, NEW_VERSION);
    awaitState("wait-for-jobs-required");
    assertThat(node(OURS).getSpec().getUnschedulable()).as("cordoned by the upgrade").isTrue();
    assertThat(node(OURS).getMetadata().getAnnotations())
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "false");
    assertThat(node(HUMANS).getMetadata().getAnnotations())
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "true");

    killAndRestart("after cordon, waiting for jobs");

    assertStates("wait-for-jobs-required");
    assertThat(evictions()).as("nothing evicted while jobs run").isEmpty();
    for (String n : NODES) {
      assertThat(node(n).getSpec().getUnschedulable()).as(n).isTrue();
    }
    assertThat(node(OURS).getMetadata().getAnnotations())
        .as("the restarted operator keeps what the node was before the upgrade")
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "false");
    assertThat(node(HUMANS).getMetadata().getAnnotations())
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "true");
    for (String n : NODES) {
      admin.pods().inNamespace(work).withName(JOB + "-" + n).delete();
    }
  }

  void killedAfterEvictionBeforeTheDriverRestarts() throws Exception {
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> {
              assertThat(evictions()).containsOnlyKeys(gpuPods.values());
              for (String pod : gpuPods.values()) {
                assertThat(admin.pods().inNamespace(work).withName(pod).get().getMetadata())
                    .as(pod)
                    .satisfies(m -> assertThat(m.getDeletionTimestamp()).isNotNull());
              }
            });
    assertStates("pod-deletion-required");

    long mark = audit.mark();
    killAndRestart("after eviction, GPU pods terminating");

    assertStates("pod-deletion-required");
    assertThat(evictionsSince(mark)).as("the restarted operator evicts nothing again").isEmpty();
    gpuPods.values().forEach(pod -> hold(work, pod, false));
  }

  void killedAfterTheOldDriverPodWasDeleted() throws Exception {
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> {
              for (String pod : oldDrivers.values()) {
                assertThat(admin.pods().inNamespace(ns).withName(pod).get().getMetadata())
                    .as(pod)
                    .satisfies(m -> assertThat(m.getDeletionTimestamp()).isNotNull());
              }
            });
    assertStates("pod-restart-required");
    assertThat(driverDeletes()).containsOnlyKeys(oldDrivers.values());

    long mark = audit.mark();
    killAndRestart("after deleting the old driver pods, before the new ones exist");

    assertStates("pod-restart-required");
    assertThat(
            audit.writesSince(mark, OperatorProcess.USER_AGENT).stream()
                .filter(w -> "pods".equals(w.resource()) && "delete".equals(w.verb())))
        .as("the restarted operator deletes no driver pod again")
        .isEmpty();
    oldDrivers.values().forEach(pod -> hold(ns, pod, false));
  }

  void killedBeforeUncordon() throws Exception {
    awaitState("validation-required");
    for (String n : NODES) {
      assertThat(node(n).getSpec().getUnschedulable()).as(n).isTrue();
    }

    killAndRestart("while validating the new driver, before uncordon");

    assertStates("validation-required");
    for (String n : NODES) {
      Files.createFile(kubelets.kubelet(n).dirs().validations().resolve(RELEASE_DRIVER));
    }
    awaitState("upgrade-done");

    assertThat(node(OURS).getSpec().getUnschedulable())
        .as("the node the upgrade cordoned is uncordoned")
        .isNotEqualTo(Boolean.TRUE);
    assertThat(node(HUMANS).getSpec().getUnschedulable()).as("the human's cordon is kept").isTrue();
    for (String n : NODES) {
      assertThat(node(n).getMetadata().getLabels()).doesNotContainValue(UpgradeKeys.PAUSED);
      assertThat(node(n).getMetadata().getAnnotations())
          .doesNotContainKeys(UpgradeKeys.INITIAL_UNSCHEDULABLE, UpgradeKeys.FAILURE_REASON);
    }
    // Across four operator processes: each GPU pod evicted once, each old driver pod deleted
    // once, and nothing else evicted or deleted.
    assertThat(evictions()).as("evictions by pod").containsOnlyKeys(gpuPods.values());
    assertThat(evictions().values()).as("evictions per pod").containsOnly(1L);
    assertThat(driverDeletes()).as("driver pod deletions").containsOnlyKeys(oldDrivers.values());
    assertThat(driverDeletes().values()).as("deletions per driver pod").containsOnly(1L);
    assertThat(
            audit.writesSince(upgradeMark, OperatorProcess.USER_AGENT).stream()
                .filter(w -> "eviction".equals(w.sub()) && w.code() != 201))
        .as("eviction requests refused")
        .isEmpty();
    assertThat(
            livePods(ns, UpgradeKeys.COMPONENT + "=" + UpgradeKeys.DRIVER_COMPONENT)
                .values()
                .stream()
                .map(
                    name ->
                        admin
                            .pods()
                            .inNamespace(ns)
                            .withName(name)
                            .get()
                            .getSpec()
                            .getContainers()
                            .get(0)
                            .getImage()))
        .hasSize(NODES.size())
        .allMatch(image -> image.contains("driver:" + NEW_VERSION));
  }

  /** Successful evictions by the operator processes since the upgrade began, per pod. */
  static Map<String, Long> evictions() {
    return evictionsSince(upgradeMark);
  }

  static Map<String, Long> evictionsSince(long mark) {
    return evictionsSince(mark, OperatorProcess.USER_AGENT);
  }

  /** Pod deletions by the operator processes since the upgrade began, per pod. */
  static Map<String, Long> driverDeletes() {
    return audit.writesSince(upgradeMark, OperatorProcess.USER_AGENT).stream()
        .filter(w -> "pods".equals(w.resource()) && "delete".equals(w.verb()) && w.sub() == null)
        .collect(Collectors.groupingBy(AuditLog.Write::name, Collectors.counting()));
  }

  /** Live (not terminating) pods matching the selector, name by node. */
  static Map<String, String> livePods(String namespace, String selector) {
    return GpuWorkloads.livePods(admin, namespace, selector);
  }

  static String state(String node) {
    Map<String, String> labels = node(node).getMetadata().getLabels();
    return labels == null ? null : labels.get(UpgradeKeys.STATE);
  }

  static void awaitState(String state) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(() -> assertStates(state));
  }

  static void assertStates(String state) {
    for (String n : NODES) {
      assertThat(state(n)).as(n).isEqualTo(state);
    }
  }
}

package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 34's acceptance for restarts: the operator, its own JVM, is SIGKILLed at each step of GPU
 * fault remediation and started again; from the node labels and annotations it carries on, and the
 * API server's audit log shows that no GPU pod was evicted twice and no second GPU reset was asked
 * for; the node remediation cordoned ends uncordoned and untainted, the node a human had cordoned
 * stays cordoned.
 *
 * <p>Two simulated GPU nodes on a real control plane: {@value #OURS} and {@value #HUMANS} (cordoned
 * by a human before the fault). The test writes the fault conditions and the reset answer as the
 * nodes' device plugins would (the plugin side is GpuRemediationIT's). Each step is held by
 * something the test lets go of after the kill:
 *
 * <ol>
 *   <li>draining: a finalizer on each evicted GPU pod keeps it terminating;
 *   <li>reset requested: nobody answers until the test does;
 *   <li>back in service: a kill after it must undo nothing and redo nothing.
 * </ol>
 *
 * After each restart the new process completes its first remediation pass, and a second one after
 * the test touches the nodes, before the hold is released.
 */
class RemediationKillIT extends SimulatedGpuCluster {
  static final String OURS = "rem-ours";
  static final String HUMANS = "rem-humans";
  static final List<String> NODES = List.of(OURS, HUMANS);

  static RestartedOperator operator;
  static long faultMark;

  @BeforeAll
  static void start() throws Exception {
    startCluster(
        NODES.stream().map(n -> NodeDescription.gpuNode(n, "H100-SXM5-80GB", 8)).toList(),
        8,
        () -> operator);
    operator = RestartedOperator.start(cp.kubeconfig(), ns, "RemediationKillIT");
  }

  static void killAndRestart(String step) throws Exception {
    operator.killAndStart(step);
    // Its first pass (at start) is where a repeated eviction or request would happen; a node
    // change then makes a second (while a node waits for its reset, nothing else wakes it).
    awaitPasses(1);
    for (String n : NODES) {
      admin
          .nodes()
          .withName(n)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"gpu-operator.test/poke\":\""
                  + operator.starts()
                  + "\"}}}");
    }
    awaitPasses(2);
  }

  /** Waits until the running process has completed this many remediation passes in all. */
  static void awaitPasses(long n) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> operator.current().passes("remediation") >= n);
  }

  static ClusterPolicy policy() {
    ClusterPolicy p = ItCluster.driverOnlyPolicy("autoUpgrade: false\n");
    p.getSpec().remediation = new RemediationSpec();
    p.getSpec().remediation.enabled = true;
    p.getSpec().remediation.maxConcurrent = new IntOrString(2);
    p.getSpec().remediation.maxFaultyNodes = new IntOrString(2);
    return p;
  }

  @Test
  void killedAtEachStepOfRemediation() throws Exception {
    Map<String, String> gpuPods = theClusterRunsAGpuPodOnEachNode();
    killedWhileDraining(gpuPods);
    String token = killedWhileTheResetIsRequested();
    killedAfterTheNodesAreBackInService(gpuPods, token);
  }

  Map<String, String> theClusterRunsAGpuPodOnEachNode() {
    admin.resource(policy()).create();
    admin.resource(GpuWorkloads.onePerNode(work, "train", NODES.size(), true, false)).create();
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              assertThat(GpuWorkloads.livePods(admin, work, "app=train").keySet())
                  .containsExactlyInAnyOrderElementsOf(NODES);
              for (String n : NODES) {
                assertThat(node(n).getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.present", "true");
              }
            });
    Map<String, String> pods = GpuWorkloads.livePods(admin, work, "app=train");
    pods.values().forEach(pod -> hold(work, pod, true));
    admin
        .nodes()
        .withName(HUMANS)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    return pods;
  }

  void killedWhileDraining(Map<String, String> gpuPods) throws Exception {
    faultMark = audit.mark();
    for (String n : NODES) {
      condition(n, GpuFaultContract.ECC, "True", "DoubleBitEcc", "GPU-1: XID 48");
    }
    awaitState(RemediationState.DRAINING);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(evictions()).containsOnlyKeys(gpuPods.values()));
    for (String n : NODES) {
      assertThat(node(n).getSpec().getUnschedulable()).as(n).isTrue();
      assertThat(taint(n)).as(n).isEqualTo(GpuFaultContract.ECC);
    }
    assertThat(node(OURS).getMetadata().getAnnotations())
        .containsEntry(RemediationKeys.INITIAL_UNSCHEDULABLE, "false");
    assertThat(node(HUMANS).getMetadata().getAnnotations())
        .containsEntry(RemediationKeys.INITIAL_UNSCHEDULABLE, "true");

    long mark = audit.mark();
    killAndRestart("while draining, GPU pods terminating");

    assertStates(RemediationState.DRAINING);
    assertThat(evictionsSince(mark)).as("the restarted operator evicts nothing again").isEmpty();
    gpuPods.values().forEach(pod -> hold(work, pod, false));
  }

  String killedWhileTheResetIsRequested() throws Exception {
    awaitState(RemediationState.RESET_REQUESTED);
    Map<String, String> tokens =
        NODES.stream()
            .collect(
                Collectors.toMap(
                    n -> n,
                    n ->
                        node(n)
                            .getMetadata()
                            .getAnnotations()
                            .get(RemediationKeys.RESET_REQUESTED)));
    assertThat(tokens.values()).doesNotContainNull();

    killAndRestart("with the GPU reset requested, not answered");

    assertStates(RemediationState.RESET_REQUESTED);
    for (String n : NODES) {
      assertThat(node(n).getMetadata().getAnnotations())
          .as("%s: the same request, not a second one", n)
          .containsEntry(RemediationKeys.RESET_REQUESTED, tokens.get(n));
    }
    // The device plugins' answer: the faulty GPU reset, its condition False.
    for (String n : NODES) {
      condition(n, GpuFaultContract.ECC, "False", "Recovered", "reset");
      condition(
          n,
          GpuFaultContract.RESET_CONDITION,
          "True",
          GpuFaultContract.RESET_DONE,
          GpuFaultContract.answerPrefix(tokens.get(n)) + " reset GPU-1");
    }
    return tokens.get(OURS);
  }

  void killedAfterTheNodesAreBackInService(Map<String, String> gpuPods, String token)
      throws Exception {
    awaitState(RemediationState.RECOVERED);
    long mark = audit.mark();
    killAndRestart("after the nodes came back in service");
    assertStates(RemediationState.RECOVERED);
    assertThat(
            audit.writesSince(mark, OperatorProcess.USER_AGENT).stream()
                .filter(w -> "nodes".equals(w.resource())))
        .as("the restarted operator writes no node")
        .isEmpty();

    assertThat(node(OURS).getSpec().getUnschedulable())
        .as("the node remediation cordoned is uncordoned")
        .isNotEqualTo(Boolean.TRUE);
    assertThat(node(HUMANS).getSpec().getUnschedulable()).as("the human's cordon is kept").isTrue();
    for (String n : NODES) {
      assertThat(taint(n)).as("%s untainted", n).isNull();
      assertThat(node(n).getMetadata().getAnnotations())
          .containsKey(RemediationKeys.RECOVERED_AT)
          .doesNotContainKeys(
              RemediationKeys.INITIAL_UNSCHEDULABLE,
              RemediationKeys.RESET_REQUESTED,
              RemediationKeys.FAULT);
    }
    // Across four operator processes: each GPU pod evicted once, nothing else evicted.
    assertThat(evictions()).as("evictions by pod").containsOnlyKeys(gpuPods.values());
    assertThat(evictions().values()).as("evictions per pod").containsOnly(1L);
  }

  static Map<String, Long> evictions() {
    return evictionsSince(faultMark);
  }

  static Map<String, Long> evictionsSince(long mark) {
    return evictionsSince(mark, OperatorProcess.USER_AGENT);
  }

  /** Writes a node condition as the node's device plugin does (strategic merge by type). */
  static void condition(String node, String type, String status, String reason, String message) {
    NodeConditions.write(admin, node, type, status, reason, message);
  }

  static String taint(String node) {
    return ItCluster.remediationTaint(node(node));
  }

  static RemediationState state(String node) {
    return ItCluster.remediationState(node(node));
  }

  static void awaitState(RemediationState state) {
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(() -> assertStates(state));
  }

  static void assertStates(RemediationState state) {
    for (String n : NODES) {
      assertThat(state(n)).as(n).isEqualTo(state);
    }
  }
}

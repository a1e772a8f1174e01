package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 34's acceptance on the simulator: 20 GPU nodes, the operator with remediation enabled
 * (maxConcurrent 3, maxFaultyNodes 10), the operator's device plugin on every node writing the
 * fault conditions and answering GPU resets through its simulated GPU backend. A fatal XID on the 3
 * nodes running a training Deployment (a PodDisruptionBudget allows 1 of its 3 pods down) takes
 * each through taint, drain, reset and back in service while the budget is never broken; a fatal
 * XID on 12 nodes at once opens the circuit breaker: the ClusterPolicy says so and no further node
 * is drained.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GpuRemediationIT {
  static final int NODES = 20;
  static final String NS = "default";

  @RegisterExtension
  static final SimulationFixture SIM =
      new SimulationFixture(
          Simulation.builder()
              .nodes(
                  IntStream.range(0, NODES)
                      .mapToObj(i -> NodeDescription.gpuNode("rem-" + i, "L4", 1))
                      .toList())
              .policy(
                  Simulation.clusterPolicy(
                      """
                      dcgm: {enabled: false}
                      dcgmExporter: {enabled: false}
                      nodeStatusExporter: {enabled: false}
                      devicePlugin:
                        env:
                        - {name: GPU_FAULT_POLL_INTERVAL, value: 1s}
                      remediation:
                        enabled: true
                        maxConcurrent: 3
                        maxFaultyNodes: 10
                        coolDownSeconds: 600
                      """),
                  "remediation policy")
              .kubeletOptions(KubeletOptions.quick()));

  static Node node(String name) {
    return SIM.client().nodes().withName(name).get();
  }

  static Optional<NodeCondition> condition(String node, String type) {
    Node n = node(node);
    return n.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst();
  }

  static RemediationState state(String node) {
    Map<String, String> l = node(node).getMetadata().getLabels();
    return RemediationState.of(l == null ? null : l.get(RemediationKeys.STATE));
  }

  static boolean tainted(Node n) {
    return n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> t.getKey().equals(RemediationKeys.TAINT));
  }

  static List<Pod> trainPods() {
    return SIM.client().pods().inNamespace(NS).withLabel("app", "train").list().getItems();
  }

  static long readyTrain() {
    return trainPods().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(
            p ->
                p.getStatus() != null
                    && p.getStatus().getConditions() != null
                    && p.getStatus().getConditions().stream()
                        .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
        .count();
  }

  static void fatalXid(String node) {
    ((io.gpuoperator.node.gpu.sim.SimulatedBackend) SIM.sim().backends().backend(node))
        .injectXid(0, 48);
  }

  static Set<String> reasons(String node) {
    return SIM.client().v1().events().inAnyNamespace().list().getItems().stream()
        .filter(e -> node.equals(e.getInvolvedObject().getName()))
        .filter(e -> "Node".equals(e.getInvolvedObject().getKind()))
        .map(e -> e.getReason())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static Optional<Condition> paused() {
    ClusterPolicy p = SIM.client().resources(ClusterPolicy.class).withName("cluster-policy").get();
    return p.getStatus() == null || p.getStatus().conditions == null
        ? Optional.empty()
        : p.getStatus().conditions.stream()
            .filter(c -> c.getType().equals("RemediationPaused"))
            .findFirst();
  }

  @Test
  @Order(1)
  void aFatalXidOnThreeNodesIsTaintedDrainedResetAndBackInService() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
    SIM.client()
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("train")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withReplicas(3)
                .withNewSelector()
                .addToMatchLabels("app", "train")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "train")
                .endMetadata()
                .withSpec(WorkloadPods.gpuPod("x", 1, null).getSpec())
                .editSpec()
                .withTerminationGracePeriodSeconds(1L)
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    SIM.client()
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("train")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withMaxUnavailable(new IntOrString(1))
                .withNewSelector()
                .addToMatchLabels("app", "train")
                .endSelector()
                .endSpec()
                .build())
        .create();
    await().atMost(Duration.ofSeconds(60)).until(() -> readyTrain() == 3);
    List<String> faulty =
        trainPods().stream().map(p -> p.getSpec().getNodeName()).distinct().sorted().toList();
    assertThat(faulty).as("one GPU per node: one train pod per node").hasSize(3);

    // The budget allows one train pod down: sampled throughout, at least 2 stay ready.
    AtomicInteger fewest = new AtomicInteger(3);
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                try {
                  fewest.accumulateAndGet((int) readyTrain(), Math::min);
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  // an API hiccup: sample again
                }
              }
            });
    sampler.setDaemon(true);
    sampler.start();
    Instant injected = Instant.now();
    faulty.forEach(GpuRemediationIT::fatalXid);

    for (String n : faulty) {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> tainted(node(n)));
    }
    Duration toTaint = Duration.between(injected, Instant.now());
    for (String n : faulty) {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> state(n) == RemediationState.RECOVERED);
    }
    Duration toService = Duration.between(injected, Instant.now());
    sampler.interrupt();
    System.out.printf(
        "GpuRemediationIT: 3 nodes, fatal XID to taint %d ms, to back in service %d ms%n",
        toTaint.toMillis(), toService.toMillis());

    for (String n : faulty) {
      Node after = node(n);
      assertThat(tainted(after)).as("%s untainted", n).isFalse();
      assertThat(after.getSpec().getUnschedulable()).as("%s uncordoned", n).isNotEqualTo(true);
      assertThat(condition(n, GpuFaultContract.ECC).orElseThrow().getStatus()).isEqualTo("False");
      NodeCondition reset = condition(n, GpuFaultContract.RESET_CONDITION).orElseThrow();
      assertThat(reset.getStatus()).isEqualTo("True");
      assertThat(reset.getMessage()).contains("reset GPU-");
      assertThat(after.getMetadata().getAnnotations())
          .containsKey(RemediationKeys.RECOVERED_AT)
          .doesNotContainKeys(RemediationKeys.RESET_REQUESTED, RemediationKeys.FAULT);
      assertThat(reasons(n))
          .contains(
              "GpuFaultTainted",
              "GpuFaultDraining",
              "GpuResetRequested",
              "GpuFaultCleared",
              "GpuNodeBackInService");
      assertThat(trainPods())
          .as("no train pod left on %s", n)
          .noneMatch(
              p ->
                  n.equals(p.getSpec().getNodeName())
                      && p.getMetadata().getDeletionTimestamp() == null);
    }
    assertThat(fewest.get())
        .as("fewest ready train pods (budget: 1 down)")
        .isGreaterThanOrEqualTo(2);
    await().atMost(Duration.ofSeconds(60)).until(() -> readyTrain() == 3);
    assertThat(paused().orElseThrow().getStatus()).isEqualTo("False");
  }

  /**
   * GPUs that fall off the bus for good: their reset fails, so a node that started stays in
   * remediation (reboot requested) and the faulty count only grows, as in a cluster-wide problem.
   */
  @Test
  @Order(2)
  void twelveFaultyNodesAtOnceOpenTheCircuitBreakerAndNoMoreNodeIsDrained() throws Exception {
    List<String> healthy = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String n = "rem-" + i;
      if (state(n) == RemediationState.NONE) {
        healthy.add(n);
      }
    }
    List<String> twelve = healthy.subList(0, 12);
    for (String n : twelve) {
      var b = (io.gpuoperator.node.gpu.sim.SimulatedBackend) SIM.sim().backends().backend(n);
      b.setLost(0, true);
      b.injectXid(0, 79);
    }
    Condition open =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(
                GpuRemediationIT::paused,
                c ->
                    c.isPresent()
                        && c.get().getStatus().equals("True")
                        && c.get().getMessage().startsWith("12 of"))
            .orElseThrow();
    assertThat(open.getReason()).isEqualTo("CircuitBreakerOpen");
    assertThat(open.getMessage())
        .startsWith("12 of 20 GPU nodes have a GPU fault (maxFaultyNodes allows 10)")
        .contains("no node starts remediation");
    // Nodes that started before the count passed the limit go on; no other starts or drains.
    Set<String> started =
        twelve.stream().filter(n -> state(n) != RemediationState.NONE).collect(Collectors.toSet());
    Set<String> cordonedAtOpen =
        twelve.stream()
            .filter(n -> Boolean.TRUE.equals(node(n).getSpec().getUnschedulable()))
            .collect(Collectors.toSet());
    assertThat(started.size()).as("at most maxConcurrent started").isLessThanOrEqualTo(3);
    Thread.sleep(10_000);
    for (String n : twelve) {
      Node now = node(n);
      if (!started.contains(n)) {
        assertThat(state(n))
            .as("%s started under an open breaker", n)
            .isEqualTo(RemediationState.NONE);
        assertThat(tainted(now)).as("%s tainted under an open breaker", n).isFalse();
      }
      if (!cordonedAtOpen.contains(n)) {
        assertThat(now.getSpec().getUnschedulable())
            .as("%s drained under an open breaker", n)
            .isNotEqualTo(true);
      } else {
        // Drained before the breaker opened: its lost GPU's reset fails, a reboot is asked for.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> state(n) == RemediationState.REBOOT_REQUIRED);
        assertThat(node(n).getMetadata().getAnnotations().get(RemediationKeys.REBOOT_REQUESTED))
            .contains("GPU reset failed");
        assertThat(condition(n, GpuFaultContract.RESET_CONDITION).orElseThrow().getStatus())
            .isEqualTo("False");
        assertThat(reasons(n)).contains("GpuRebootRequested");
      }
    }
    System.out.printf(
        "GpuRemediationIT: breaker open with %d nodes started before it, %d of them drained%n",
        started.size(), cordonedAtOpen.size());
  }
}

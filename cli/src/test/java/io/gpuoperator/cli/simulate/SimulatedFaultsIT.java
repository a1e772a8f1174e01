package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.gpuoperator.sim.kubelet.ClusterFile;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 34, points 1 and 5: a cluster file's fault schedule on a simulated cluster, the operator's
 * device plugin (its rendered DaemonSet, its ServiceAccount's RBAC) writing the Node conditions. A
 * GPU that falls off the bus and a double-bit ECC XID become conditions naming the GPU, the XID and
 * the times within seconds of the injection; a thermal slowdown shorter than the escalation window
 * leaves none.
 */
class SimulatedFaultsIT {
  static final String LOST = "faults-0";
  static final String MIXED = "faults-1";
  static final Duration ESCALATION = Duration.ofSeconds(6);

  static final ClusterFile FILE =
      ClusterFile.parse(
          """
          nodes:
          - {name: faults, profile: L4, gpus: 2, count: 2}
          faults:
          - {node: faults-0, gpu: 1, lost: true, xid: 79}
          - {node: faults-1, gpu: 0, xid: 48}
          - {node: faults-1, gpu: 1, thermal: true, recoverAfter: 2s}
          """,
          "faults.yaml");

  @RegisterExtension
  static final SimulationFixture SIM =
      new SimulationFixture(
          Simulation.builder()
              .nodes(FILE.nodes())
              .faults(FILE.faults())
              .policy(
                  Simulation.clusterPolicy(
                      """
                      dcgm: {enabled: false}
                      nodeStatusExporter: {enabled: false}
                      devicePlugin:
                        env:
                        - {name: GPU_FAULT_POLL_INTERVAL, value: 500ms}
                        - {name: GPU_FAULT_ESCALATION_WINDOW, value: 6s}
                      """),
                  "faults policy")
              .kubeletOptions(KubeletOptions.quick()));

  private static Optional<NodeCondition> condition(String node, String type) {
    return SIM.client().nodes().withName(node).get().getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst();
  }

  private static Instant injected(String node, String what) {
    return SIM.sim().injectedFaults().stream()
        .filter(i -> i.fault().node().equals(node) && i.what().equals(what))
        .map(FaultSchedule.Injected::at)
        .findFirst()
        .orElseThrow(() -> new AssertionError("not injected: " + node + " " + what));
  }

  @Test
  void scheduledFaultsBecomeNodeConditionsAndAShortSlowdownDoesNot() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.notReady()).isTrue();
    // No fault before the cluster is ready: the schedule's clock starts there.
    String lostUuid = SIM.sim().backends().backend(LOST).device(1).uuid();
    String eccUuid = SIM.sim().backends().backend(MIXED).device(0).uuid();

    NodeCondition lost =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> condition(LOST, "GpuLost"),
                c -> c.isPresent() && c.get().getMessage().contains(": XID 79 "))
            .get();
    Duration toCondition = Duration.between(injected(LOST, "XID 79"), Instant.now());
    // The device plugin marks the GPU lost first, then the XID: never a healthy reading between.
    assertThat(injected(LOST, "fallen off the bus")).isBeforeOrEqualTo(injected(LOST, "XID 79"));
    System.out.printf(
        "SimulatedFaultsIT: XID 79 to GpuLost condition: %d ms%n", toCondition.toMillis());
    assertThat(toCondition).as("fault to condition").isLessThan(Duration.ofSeconds(10));
    assertThat(lost.getStatus()).isEqualTo("True");
    assertThat(lost.getReason()).isEqualTo("FallenOffTheBus");
    assertThat(lost.getMessage())
        .startsWith(lostUuid + ": XID 79 (FallenOffTheBus, ")
        .contains("first seen ", "last seen ");
    assertThat(condition(LOST, "Ready").orElseThrow().getStatus()).isEqualTo("True");
    assertThat(condition(LOST, "GpuEccError")).isEmpty();

    NodeCondition ecc =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> condition(MIXED, "GpuEccError"), Optional::isPresent)
            .get();
    assertThat(ecc.getStatus()).isEqualTo("True");
    assertThat(ecc.getReason()).isEqualTo("DoubleBitEcc");
    assertThat(ecc.getMessage())
        .startsWith(eccUuid + ": XID 48 (DoubleBitEcc, 1 time, first seen ");

    // The slowdown lasted 2 s, read every 500 ms: past its escalation window it left nothing.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                SIM.sim().injectedFaults().stream()
                    .anyMatch(i -> i.what().equals("thermal slowdown over")));
    Instant over = injected(MIXED, "thermal slowdown over");
    assertThat(Duration.between(injected(MIXED, "thermal slowdown"), over)).isLessThan(ESCALATION);
    Instant check = over.plus(ESCALATION).plusSeconds(2);
    await().atMost(ESCALATION.plusSeconds(20)).until(() -> Instant.now().isAfter(check));
    assertThat(condition(MIXED, "GpuThermal")).isEmpty();
    assertThat(condition(LOST, "GpuLost").orElseThrow().getStatus())
        .as("a GPU that never recovers stays reported")
        .isEqualTo("True");
  }
}

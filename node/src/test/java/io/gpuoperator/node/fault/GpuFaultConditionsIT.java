package io.gpuoperator.node.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.node.gpu.ClockEventReasons;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.HealthMonitor;
import io.gpuoperator.node.gpu.XidPolicy;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The GPU fault conditions on a real API server: a Node registered and made Ready with its own
 * (kubelet) credentials, the health monitor and the fault reporter the GPU-serving agents run,
 * against a simulated backend, writing with that node's credentials as the plugin would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GpuFaultConditionsIT {
  private static final String NODE = "gpu-fault-node";
  private static final Duration ESCALATION = Duration.ofSeconds(3);
  private static final Duration RECOVERY = Duration.ofSeconds(4);

  private ControlPlane cp;
  private KubernetesClient admin;
  private SimulatedBackend backend;
  private HealthMonitor monitor;
  private GpuFaultReporter reporter;

  @BeforeAll
  void start() throws Exception {
    cp = ControlPlane.builder().nodes(List.of(NODE)).start();
    admin = cp.client();
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    KubernetesClient kubelet = cp.nodeClient(NODE);
    kubelet
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    kubelet
        .nodes()
        .withName(NODE)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
                + "\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\","
                + "\"lastHeartbeatTime\":\""
                + now
                + "\",\"lastTransitionTime\":\""
                + now
                + "\"}]}}");
    backend =
        new SimulatedBackend(
            HardwareProfiles.parseNode(
                """
                driverVersion: 550.54.15
                cudaVersion: "12.4"
                gpus: [{model: H100-SXM5-80GB, count: 4}]
                """,
                "t"),
            NODE);
    XidPolicy policy = XidPolicy.defaults();
    reporter =
        new GpuFaultReporter(
            backend,
            new FaultClassifier(policy, 60),
            new FaultTracker(ESCALATION, RECOVERY),
            new NodeFaultConditions(kubelet, NODE),
            Duration.ofMillis(250),
            NODE);
    monitor =
        new HealthMonitor(
                backend,
                policy,
                RECOVERY,
                GpuInventory.read(backend, null),
                Duration.ofMillis(200),
                unhealthy -> {})
            .observe(reporter)
            .start();
    reporter.start();
  }

  @AfterAll
  void stop() {
    if (reporter != null) {
      reporter.close();
    }
    if (monitor != null) {
      monitor.close();
    }
    if (backend != null) {
      backend.close();
    }
    if (cp != null) {
      cp.close();
    }
  }

  private Optional<NodeCondition> condition(String type) {
    Node node = admin.nodes().withName(NODE).get();
    return node.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst();
  }

  /** A condition the reporter put on the Node, and how long after the call it appeared. */
  private record Reported(NodeCondition condition, long millis) {}

  /**
   * The condition once the reporter has put it on the Node, checked to be True with this reason;
   * timed from now.
   */
  private Reported awaitReported(String type, String reason, Duration atMost) {
    long start = System.nanoTime();
    NodeCondition c =
        await()
            .atMost(atMost)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> condition(type), Optional::isPresent)
            .get();
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(c.getStatus()).as(type).isEqualTo("True");
    assertThat(c.getReason()).as(type).isEqualTo(reason);
    return new Reported(c, millis);
  }

  /** The condition once it is False again (recovered). */
  private NodeCondition awaitFalse(String type, Duration atMost) {
    return await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> condition(type).orElseThrow(), c -> c.getStatus().equals("False"));
  }

  @Test
  void aFatalXidBecomesAConditionWithinSecondsAndTheKubeletsConditionsStay() {
    String uuid = backend.device(2).uuid();
    // An application XID first: the GPU stays healthy, no condition.
    backend.injectXid(1, 13);
    Instant injected = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    backend.injectXid(2, 48);
    Reported reported = awaitReported("GpuEccError", "DoubleBitEcc", Duration.ofSeconds(10));
    assertThat(reported.millis()).as("fault to condition, ms").isLessThan(5_000);
    NodeCondition ecc = reported.condition();
    assertThat(ecc.getMessage())
        .startsWith(uuid + ": XID 48 (DoubleBitEcc, 1 time, first seen ")
        .contains("last seen ");
    assertThat(Instant.parse(ecc.getLastTransitionTime())).isAfterOrEqualTo(injected);
    assertThat(condition("GpuXidError")).as("XID 13 is an application error").isEmpty();
    assertThat(condition("Ready").orElseThrow().getReason()).isEqualTo("KubeletReady");

    // Quiet for the recovery period: False, Recovered.
    NodeCondition recovered = awaitFalse("GpuEccError", Duration.ofSeconds(15));
    assertThat(recovered.getReason()).isEqualTo("Recovered");
    assertThat(condition("Ready").orElseThrow().getStatus()).isEqualTo("True");
  }

  @Test
  void aLostGpuStaysReportedWhileItAnswersGpuIsLostAndRecoversOnceBack() {
    String uuid = backend.device(3).uuid();
    // Lost first, then the event: the reading never sees it alive after the XID.
    backend.setLost(3, true);
    backend.injectXid(3, 79);
    // Whichever comes first (the event, or a reading answered GPU_IS_LOST), the XID is named.
    NodeCondition lost =
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> condition("GpuLost"),
                c -> c.isPresent() && c.get().getMessage().contains(": XID 79 "))
            .get();
    assertThat(lost.getStatus()).isEqualTo("True");
    assertThat(lost.getReason()).isEqualTo("FallenOffTheBus");
    assertThat(lost.getMessage()).startsWith(uuid + ": XID 79 (FallenOffTheBus, ");
    // Twice the recovery period later it is still True: every reading finds it lost.
    await().pollDelay(RECOVERY.multipliedBy(2)).until(() -> true);
    assertThat(condition("GpuLost").orElseThrow().getStatus()).isEqualTo("True");

    // Back on the bus (a reset, a reboot): recovered one quiet period later.
    backend.setLost(3, false);
    NodeCondition back = awaitFalse("GpuLost", RECOVERY.plusSeconds(10));
    assertThat(back.getReason()).isEqualTo("Recovered");
  }

  @Test
  void aSlowdownShorterThanTheEscalationWindowIsNotReportedALongerOneIs() throws Exception {
    backend.setClockEventReasons(0, ClockEventReasons.HW_THERMAL_SLOWDOWN);
    Thread.sleep(ESCALATION.toMillis() / 2);
    backend.setClockEventReasons(0, 0);
    // Well past the window: several readings without it, nothing reported.
    Thread.sleep(ESCALATION.toMillis() * 2);
    assertThat(condition("GpuThermal")).isEmpty();

    backend.setClockEventReasons(0, ClockEventReasons.HW_THERMAL_SLOWDOWN);
    Reported thermal = awaitReported("GpuThermal", "ThermalSlowdown", Duration.ofSeconds(15));
    assertThat(thermal.millis())
        .as("not before the escalation window")
        .isGreaterThanOrEqualTo(2_500);
    assertThat(thermal.condition().getMessage())
        .startsWith(backend.device(0).uuid() + ": clocks held down");
    backend.setClockEventReasons(0, 0);
  }
}

package io.gpuoperator.node.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.ClockEventReasons;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.XidPolicy;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FaultClassifierTest {
  private static final String GPU = "GPU-00000000-0000-0000-0000-000000000001";
  private final FaultClassifier classifier = new FaultClassifier(XidPolicy.defaults(), 60);

  private static GpuEvent xid(long xid) {
    return new GpuEvent(
        GpuEventType.XID_CRITICAL_ERROR,
        0,
        GPU,
        xid,
        GpuEvent.ALL_INSTANCES,
        GpuEvent.ALL_INSTANCES);
  }

  private static Telemetry reading(long remappedUncorrectable, long pending, long failed) {
    long u = Telemetry.UNSUPPORTED;
    return new Telemetry(
        u,
        u,
        u,
        u,
        0,
        0,
        0,
        u,
        u,
        u,
        u,
        u,
        u,
        u,
        u,
        u,
        u,
        u,
        0,
        remappedUncorrectable,
        pending,
        failed);
  }

  @Test
  void xidsAreSortedIntoClassesAndApplicationXidsAreNoFault() {
    // The table of cases: XID -> class and reason; null: no fault.
    Map<Long, String> cases =
        Map.of(
            79L, "LOST/FallenOffTheBus",
            74L, "NVLINK/NvlinkError",
            48L, "ECC/DoubleBitEcc",
            95L, "ECC/UncontainedEccError",
            64L, "ECC/RowRemapFailure",
            119L, "XID/FatalXid",
            62L, "XID/FatalXid");
    cases.forEach(
        (x, expected) -> {
          GpuFault f = classifier.ofEvent(xid(x), GPU).orElseThrow();
          assertThat(f.faultClass() + "/" + f.reason()).as("XID %d", x).isEqualTo(expected);
          assertThat(f.xid()).isEqualTo(x);
          assertThat(f.gpuUuid()).isEqualTo(GPU);
        });
    // Application XIDs (the original's ignore list and "restart the application" ones).
    for (long x : new long[] {13, 31, 43, 45, 68, 109, 94}) {
      assertThat(classifier.ofEvent(xid(x), GPU)).as("XID %d", x).isEmpty();
    }
  }

  @Test
  void theDevicePluginsXidPolicyDecidesWhatCounts() {
    var policy =
        XidPolicy.fromEnv(Map.of("DP_DISABLE_HEALTHCHECKS", "79", "DP_ENABLE_HEALTHCHECKS", "13"));
    var c = new FaultClassifier(policy, 60);
    assertThat(c.ofEvent(xid(79), GPU)).isEmpty();
    assertThat(c.ofEvent(xid(13), GPU).orElseThrow().faultClass()).isEqualTo(FaultClass.XID);
  }

  @Test
  void doubleBitEccIsAnEccFaultSingleBitIsNone() {
    var dbe =
        new GpuEvent(
            GpuEventType.DOUBLE_BIT_ECC_ERROR,
            0,
            GPU,
            0,
            GpuEvent.ALL_INSTANCES,
            GpuEvent.ALL_INSTANCES);
    var sbe =
        new GpuEvent(
            GpuEventType.SINGLE_BIT_ECC_ERROR,
            0,
            GPU,
            0,
            GpuEvent.ALL_INSTANCES,
            GpuEvent.ALL_INSTANCES);
    assertThat(classifier.ofEvent(dbe, GPU).map(GpuFault::faultClass)).contains(FaultClass.ECC);
    assertThat(classifier.ofEvent(sbe, GPU)).isEqualTo(Optional.empty());
  }

  @Test
  void readingsShowRowRemappingTheRetiredRowsThresholdAndSlowdowns() {
    assertThat(classifier.ofReading(GPU, reading(59, 0, 0), 0)).isEmpty();
    assertThat(classifier.ofReading(GPU, reading(60, 0, 0), 0))
        .extracting(GpuFault::reason)
        .containsExactly("RetiredRowsThreshold");
    assertThat(classifier.ofReading(GPU, reading(0, 1, 0), 0))
        .extracting(GpuFault::reason)
        .containsExactly("RowRemapPending");
    assertThat(classifier.ofReading(GPU, reading(0, 1, 1), 0))
        .extracting(GpuFault::reason)
        .containsExactly("RowRemapFailure");
    // Unsupported remapping (-1) is no fault.
    long u = Telemetry.UNSUPPORTED;
    assertThat(classifier.ofReading(GPU, reading(u, u, u), u)).isEmpty();
    // A power cap or idle clocks are the GPU working as configured; slowdowns are faults.
    assertThat(
            classifier.ofReading(
                GPU, null, ClockEventReasons.SW_POWER_CAP | ClockEventReasons.GPU_IDLE))
        .isEmpty();
    assertThat(classifier.ofReading(GPU, null, ClockEventReasons.HW_THERMAL_SLOWDOWN))
        .extracting(f -> f.faultClass() + "/" + f.reason())
        .containsExactly("THERMAL/ThermalSlowdown");
    assertThat(classifier.ofReading(GPU, null, ClockEventReasons.HW_POWER_BRAKE_SLOWDOWN))
        .extracting(GpuFault::reason)
        .containsExactly("PowerBrakeSlowdown");
    // No threshold when 0.
    assertThat(new FaultClassifier(XidPolicy.defaults(), 0).ofReading(GPU, reading(500, 0, 0), 0))
        .isEmpty();
  }
}

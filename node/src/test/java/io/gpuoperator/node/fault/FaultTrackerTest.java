package io.gpuoperator.node.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultTrackerTest {
  private static final String G0 = "GPU-0";
  private static final String G1 = "GPU-1";
  private static final long T0 = 1_764_961_200_000L; // 2025-12-05T19:00:00Z

  private static GpuFault lost(String gpu) {
    return new GpuFault(FaultClass.LOST, gpu, 79, "FallenOffTheBus", "XID 79");
  }

  private static GpuFault thermal(String gpu) {
    return new GpuFault(FaultClass.THERMAL, gpu, 0, "ThermalSlowdown", "clocks held down: too hot");
  }

  private static FaultCondition only(FaultTracker t) {
    List<FaultCondition> c = t.conditions();
    assertThat(c).hasSize(1);
    return c.get(0);
  }

  @Test
  void aHealthyNodeHasNoConditionOfOurs() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ofMinutes(5));
    t.observeReading(List.of(), T0);
    assertThat(t.tick(T0)).isFalse();
    assertThat(t.conditions()).isEmpty();
  }

  @Test
  void anImmediateFaultIsReportedAtOnceWithGpusXidsAndTimesThenRecoversAfterTheQuietPeriod() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ofSeconds(60));
    t.observe(lost(G0), T0);
    t.observe(lost(G0), T0 + 2_000);
    t.observe(new GpuFault(FaultClass.LOST, G1, 0, "FallenOffTheBus", "GPU_IS_LOST"), T0 + 3_000);
    FaultCondition c = only(t);
    assertThat(c.type()).isEqualTo("GpuLost");
    assertThat(c.status()).isEqualTo("True");
    assertThat(c.reason()).isEqualTo("FallenOffTheBus");
    assertThat(c.message())
        .isEqualTo(
            "GPU-0: XID 79 (FallenOffTheBus, 2 times, first seen 2025-12-05T19:00:00Z, last seen"
                + " 2025-12-05T19:00:02Z); GPU-1: GPU_IS_LOST (FallenOffTheBus, 1 time, first seen"
                + " 2025-12-05T19:00:03Z, last seen 2025-12-05T19:00:03Z)");
    assertThat(c.lastSeenMillis()).isEqualTo(T0 + 3_000);

    // The quiet period counts from each GPU's last sign.
    assertThat(t.tick(T0 + 62_000)).isTrue();
    assertThat(only(t).message()).startsWith("GPU-1: ");
    t.tick(T0 + 63_000);
    FaultCondition recovered = only(t);
    assertThat(recovered.status()).isEqualTo("False");
    assertThat(recovered.reason()).isEqualTo("Recovered");
  }

  @Test
  void aNewGpuChangesTheIdentityAMoreRecentSignDoesNot() {
    FaultTracker t = new FaultTracker(Duration.ZERO, Duration.ofSeconds(60));
    t.observe(lost(G0), T0);
    String first = only(t).identity();
    t.observe(lost(G0), T0 + 1_000);
    assertThat(only(t).identity()).isEqualTo(first);
    t.observe(lost(G1), T0 + 2_000);
    assertThat(only(t).identity()).isNotEqualTo(first);
  }

  @Test
  void aSustainedFaultShorterThanTheEscalationWindowIsNeverReported() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ofSeconds(60));
    for (long s = 0; s <= 20; s += 10) {
      t.observeReading(List.of(thermal(G0)), T0 + s * 1_000);
      assertThat(t.conditions()).as("after %ds", s).isEmpty();
    }
    // Gone at the next reading: forgotten, and a new slowdown starts its window again.
    t.observeReading(List.of(), T0 + 30_000);
    t.observeReading(List.of(thermal(G0)), T0 + 40_000);
    t.observeReading(List.of(thermal(G0)), T0 + 60_000);
    assertThat(t.conditions()).isEmpty();
    t.observeReading(List.of(thermal(G0)), T0 + 70_000);
    FaultCondition c = only(t);
    assertThat(c.type()).isEqualTo("GpuThermal");
    assertThat(c.status()).isEqualTo("True");
    assertThat(c.message()).contains("first seen 2025-12-05T19:00:40Z");
    // Once reported, a reading without it does not clear it: the recovery period does.
    t.observeReading(List.of(), T0 + 80_000);
    assertThat(only(t).status()).isEqualTo("True");
    t.tick(T0 + 130_000);
    assertThat(only(t).status()).isEqualTo("False");
  }

  @Test
  void zeroRecoveryMeansTheConditionStaysUntilTheAgentIsToldOtherwise() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ZERO);
    t.observe(lost(G0), T0);
    assertThat(t.tick(T0 + Duration.ofDays(30).toMillis())).isFalse();
    assertThat(only(t).status()).isEqualTo("True");
  }

  @Test
  void aConditionCarriedOverARestartStaysTrueUntilItsRecoveryPeriodEnds() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ofSeconds(60));
    t.restore(FaultClass.ECC, "DoubleBitEcc", "GPU-0: double-bit ECC error (...)", T0, T0 + 5_000);
    FaultCondition c = only(t);
    assertThat(c.status()).isEqualTo("True");
    assertThat(c.reason()).isEqualTo("DoubleBitEcc");
    assertThat(c.message()).isEqualTo("GPU-0: double-bit ECC error (...)");
    t.tick(T0 + 64_000);
    assertThat(only(t).status()).isEqualTo("True");
    t.tick(T0 + 65_000);
    assertThat(only(t).status()).isEqualTo("False");
  }

  /** A GPU reset forgets that GPU's faults (and restored ones of unknown GPUs), not another's. */
  @Test
  void aResetGpuLosesItsFaultsAndTheConditionTurnsFalse() {
    FaultTracker t = new FaultTracker(Duration.ofSeconds(30), Duration.ofMinutes(5));
    t.observe(lost(G0), T0);
    t.observe(lost(G1), T0);
    assertThat(t.faultyGpus()).containsExactly(G0, G1);
    t.reset(java.util.Set.of(G0));
    assertThat(t.faultyGpus()).containsExactly(G1);
    assertThat(only(t).status()).isEqualTo(FaultCondition.TRUE);
    assertThat(only(t).message()).contains(G1).doesNotContain(G0);
    t.reset(java.util.Set.of(G1));
    assertThat(only(t).status()).isEqualTo(FaultCondition.FALSE);

    FaultTracker restored = new FaultTracker(Duration.ofSeconds(30), Duration.ofMinutes(5));
    restored.restore(FaultClass.ECC, "DoubleBitEcc", "GPU-9: XID 48", T0, T0);
    assertThat(restored.faultyGpus()).containsExactly("");
    restored.reset(java.util.Set.of());
    assertThat(only(restored).status()).isEqualTo(FaultCondition.FALSE);
  }
}

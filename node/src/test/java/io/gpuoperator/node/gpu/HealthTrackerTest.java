package io.gpuoperator.node.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HealthTrackerTest {
  private static GpuInventory inventory() {
    try (SimulatedBackend b = TestNodes.backend("gpus: [{model: A100-SXM4-40GB, count: 2}]\n")) {
      return GpuInventory.read(b, null);
    }
  }

  private static GpuEvent event(GpuEventType type, int gpu, String uuid, long data) {
    return new GpuEvent(type, gpu, uuid, data, GpuEvent.ALL_INSTANCES, GpuEvent.ALL_INSTANCES);
  }

  @Test
  void eccDoubleBitIsCriticalSingleBitIsNotAndRecoveryWaitsForTheLastEvent() {
    GpuInventory inv = inventory();
    String g0 = inv.gpus().get(0).uuid();
    String g1 = inv.gpus().get(1).uuid();
    HealthTracker t = new HealthTracker(XidPolicy.defaults(), Duration.ofSeconds(10), inv);

    assertThat(t.onEvent(event(GpuEventType.SINGLE_BIT_ECC_ERROR, 0, g0, 0), 0)).isFalse();
    assertThat(t.onEvent(event(GpuEventType.DOUBLE_BIT_ECC_ERROR, 1, g1, 0), 1_000)).isTrue();
    assertThat(t.unhealthy()).containsExactly(g1);
    assertThat(t.reason(g1)).isEqualTo("double-bit ECC error");

    // A second critical event restarts the quiet period.
    t.onEvent(event(GpuEventType.XID_CRITICAL_ERROR, 1, g1, 79), 8_000);
    assertThat(t.tick(12_000)).isFalse();
    assertThat(t.unhealthy()).containsExactly(g1);
    assertThat(t.tick(18_000)).isTrue();
    assertThat(t.unhealthy()).isEmpty();
    assertThat(t.reason(g1)).isNull();
  }

  @Test
  void withoutARecoveryPeriodDevicesStayUnhealthyAsInTheOriginal() {
    GpuInventory inv = inventory();
    String g0 = inv.gpus().get(0).uuid();
    HealthTracker t =
        new HealthTracker(
            XidPolicy.defaults(), io.gpuoperator.config.GoDuration.parse("infinite"), inv);
    t.onBackendFailure("nvmlEventSetWait: Unknown Error", 0);
    assertThat(t.unhealthy()).hasSize(2);
    assertThat(t.tick(Long.MAX_VALUE / 2)).isFalse();
    assertThat(t.reason(g0)).isEqualTo("GPU backend failed: nvmlEventSetWait: Unknown Error");
  }
}

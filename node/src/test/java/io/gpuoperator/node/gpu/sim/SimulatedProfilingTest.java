package io.gpuoperator.node.gpu.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.Telemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator's profiling fields are plausible enough to test dashboards against: ratios in [0,
 * 1] that follow the same utilisation as the telemetry (the graphics engine as busy as {@code
 * GPU_UTIL}, DRAM as busy as {@code MEM_COPY_UTIL}), sub-activities no larger than what contains
 * them, traffic in bytes per second within the links' speed, values that move over time, and the
 * GPUs NVML could not measure reporting so.
 */
class SimulatedProfilingTest {

  @Test
  void hopperValuesFollowTheUtilisationAndStayInTheirUnits() {
    MutableClock clock = new MutableClock();
    SimulatedBackend b = new SimulatedBackend(HardwareProfiles.node("dgx-h100"), "n", clock);
    List<Double> engine = new ArrayList<>();
    for (int s = 0; s < 600; s += 30) {
      clock.advance(Duration.ofSeconds(30));
      for (int gpu = 0; gpu < 8; gpu++) {
        Telemetry t = b.telemetry(gpu);
        Profiling p = b.profiling(gpu);
        assertThat(p.unavailable()).isEmpty();
        assertThat(p.values()).hasSize(ProfilingMetric.values().length);
        for (ProfilingMetric m : ProfilingMetric.values()) {
          double v = p.value(m);
          if (m.unit() == ProfilingMetric.Unit.RATIO) {
            assertThat(v).as(m.name()).isBetween(0.0, 1.0);
          } else {
            // Bytes per second: at most 18 NVLinks x 25 GB/s, PCIe at most a Gen4 x16 direction.
            assertThat(v).as(m.name()).isBetween(0.0, 18 * 25e9);
          }
        }
        assertThat(p.value(ProfilingMetric.GR_ENGINE_ACTIVE) * 100)
            .isCloseTo(t.gpuUtilizationPercent(), within(0.5));
        assertThat(p.value(ProfilingMetric.DRAM_ACTIVE) * 100)
            .isCloseTo(t.memoryUtilizationPercent(), within(0.5));
        assertThat(p.value(ProfilingMetric.SM_ACTIVE))
            .isLessThanOrEqualTo(p.value(ProfilingMetric.GR_ENGINE_ACTIVE));
        assertThat(p.value(ProfilingMetric.SM_OCCUPANCY))
            .isLessThanOrEqualTo(p.value(ProfilingMetric.SM_ACTIVE));
        assertThat(
                p.value(ProfilingMetric.PIPE_TENSOR_HMMA_ACTIVE)
                    + p.value(ProfilingMetric.PIPE_TENSOR_IMMA_ACTIVE)
                    + p.value(ProfilingMetric.PIPE_TENSOR_DFMA_ACTIVE))
            .isLessThanOrEqualTo(p.value(ProfilingMetric.PIPE_TENSOR_ACTIVE) + 1e-12);
        assertThat(p.value(ProfilingMetric.PCIE_TX_BYTES)).isLessThanOrEqualTo(32e9);
        engine.add(p.value(ProfilingMetric.GR_ENGINE_ACTIVE));
      }
    }
    // Ten minutes of a slow sine wave: the values move, as a dashboard should see.
    assertThat(
            engine.stream().mapToDouble(Double::doubleValue).max().orElseThrow()
                - engine.stream().mapToDouble(Double::doubleValue).min().orElseThrow())
        .isGreaterThan(0.1);
  }

  @Test
  void preHopperGpusReportTheGpmFieldsUnavailableAndPcieOnlyBoardsTheNvlinkOnes() {
    SimulatedBackend t4 = new SimulatedBackend(HardwareProfiles.node("t4-x4"), "n");
    Profiling p = t4.profiling(0);
    for (ProfilingMetric m : ProfilingMetric.values()) {
      if (m.needsGpm()) {
        assertThat(p.unavailable()).containsEntry(m, Profiling.NO_GPM);
      }
    }
    assertThat(p.unavailable())
        .containsEntry(ProfilingMetric.NVLINK_TX_BYTES, Profiling.NO_NVLINK)
        .containsEntry(ProfilingMetric.NVLINK_RX_BYTES, Profiling.NO_NVLINK);
    assertThat(p.values().keySet())
        .containsExactlyInAnyOrder(ProfilingMetric.PCIE_TX_BYTES, ProfilingMetric.PCIE_RX_BYTES);
    assertThat(p.value(ProfilingMetric.SM_ACTIVE)).isNaN();

    Profiling a100 = new SimulatedBackend(HardwareProfiles.node("dgx-a100"), "n").profiling(3);
    assertThat(a100.unavailable()).hasSize(12).containsValue(Profiling.NO_GPM);
    assertThat(a100.value(ProfilingMetric.NVLINK_TX_BYTES)).isPositive();
  }
}

package io.gpuoperator.node.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.MutableClock;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NvmlProfiling over the stand-in NVML answering from the simulator: GPM metrics need two samples
 * and then equal the simulator's ratios (NVML's percent converted back), PCIe and NVLink traffic
 * come in bytes per second from nvmlDeviceGetPcieThroughput and the per-link throughput counters, a
 * pre-Hopper GPU reports every GPM field unavailable with the reason and allocates no sample, and
 * closing frees every sample it allocated.
 */
class NvmlProfilingTest {
  @TempDir Path sysfs;

  final MutableClock clock = new MutableClock();

  SimulatedBackend sim(String model) {
    return new SimulatedBackend(
        HardwareProfiles.parseNode(
            """
            driverVersion: 550.54.15
            cudaVersion: "12.4"
            gpus:
              - {model: %s, count: 2}
            """
                .formatted(model),
            "t"),
        "node-1",
        clock);
  }

  @Test
  void hopperGivesEveryFieldFromTheSecondReadingAndFreesItsSamplesOnClose() {
    SimulatedBackend sim = sim("H100-SXM5-80GB");
    SimulatedNvml nvml = new SimulatedNvml(sim, clock);
    NvmlBackend backend = NvmlBackend.open(nvml, sysfs);
    Profiling first = backend.profiling(0);
    // One sample so far: no GPM or NVLink rate yet, and nothing claimed unavailable either.
    assertThat(first.unavailable()).isEmpty();
    assertThat(first.values().keySet())
        .containsExactlyInAnyOrder(ProfilingMetric.PCIE_TX_BYTES, ProfilingMetric.PCIE_RX_BYTES);
    assertThat(backend.gpmSamplesHeld()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(10));
    Profiling second = backend.profiling(0);
    Profiling expected = sim.profiling(0);
    assertThat(second.unavailable()).isEmpty();
    assertThat(second.values().keySet()).containsExactlyInAnyOrder(ProfilingMetric.values());
    for (ProfilingMetric m : ProfilingMetric.values()) {
      if (m.unit() == ProfilingMetric.Unit.RATIO) {
        assertThat(second.value(m)).as(m.name()).isCloseTo(expected.value(m), within(1e-9));
        assertThat(second.value(m)).as(m.name()).isBetween(0.0, 1.0);
      }
    }
    // PCIe: NVML's KB/s (rounded) back to bytes per second.
    assertThat(second.value(ProfilingMetric.PCIE_TX_BYTES))
        .isCloseTo(expected.value(ProfilingMetric.PCIE_TX_BYTES), within(1024.0));
    assertThat(second.value(ProfilingMetric.PCIE_RX_BYTES))
        .isCloseTo(expected.value(ProfilingMetric.PCIE_RX_BYTES), within(1024.0));
    // NVLink: the four links' KiB counters grew at the simulator's rate for 10 s.
    double tx = expected.value(ProfilingMetric.NVLINK_TX_BYTES);
    assertThat(tx).isGreaterThan(1e9);
    assertThat(second.value(ProfilingMetric.NVLINK_TX_BYTES)).isCloseTo(tx, within(tx * 1e-6));
    double rx = expected.value(ProfilingMetric.NVLINK_RX_BYTES);
    assertThat(second.value(ProfilingMetric.NVLINK_RX_BYTES)).isCloseTo(rx, within(rx * 1e-6));

    // Two buffers per GPU, reused from then on.
    backend.profiling(1);
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(1));
      backend.profiling(0);
      backend.profiling(1);
    }
    assertThat(backend.gpmSamplesHeld()).isEqualTo(4);
    assertThat(nvml.samplesAllocated).isEqualTo(4);
    backend.close();
    assertThat(nvml.samplesFreed).isEqualTo(4);
    assertThat(backend.gpmSamplesHeld()).isZero();
    assertThatThrownBy(() -> backend.profiling(0))
        .isInstanceOf(GpuBackendException.Uninitialized.class);
    assertThat(nvml.samplesAllocated).isEqualTo(4);
  }

  @Test
  void preHopperReportsEveryGpmFieldUnavailableButGivesPcieAndNvlink() {
    SimulatedBackend sim = sim("A100-SXM4-40GB");
    SimulatedNvml nvml = new SimulatedNvml(sim, clock);
    try (NvmlBackend backend = NvmlBackend.open(nvml, sysfs)) {
      backend.profiling(0);
      clock.advance(Duration.ofSeconds(5));
      Profiling p = backend.profiling(0);
      ProfilingMetric[] gpm =
          Arrays.stream(ProfilingMetric.values())
              .filter(ProfilingMetric::needsGpm)
              .toArray(ProfilingMetric[]::new);
      assertThat(gpm).hasSize(12);
      assertThat(p.unavailable().keySet()).containsExactlyInAnyOrder(gpm);
      assertThat(p.unavailable().values()).containsOnly(Profiling.NO_GPM);
      assertThat(p.values().keySet())
          .containsExactlyInAnyOrder(
              ProfilingMetric.PCIE_TX_BYTES,
              ProfilingMetric.PCIE_RX_BYTES,
              ProfilingMetric.NVLINK_TX_BYTES,
              ProfilingMetric.NVLINK_RX_BYTES);
      double tx = sim.profiling(0).value(ProfilingMetric.NVLINK_TX_BYTES);
      assertThat(p.value(ProfilingMetric.NVLINK_TX_BYTES)).isCloseTo(tx, within(tx * 1e-6));
    }
    assertThat(nvml.samplesAllocated).isZero();
  }

  @Test
  void aPcieOnlyBoardReportsNvlinkUnavailable() {
    SimulatedNvml nvml = new SimulatedNvml(sim("T4"), clock);
    try (NvmlBackend backend = NvmlBackend.open(nvml, sysfs)) {
      backend.profiling(1);
      clock.advance(Duration.ofSeconds(5));
      Profiling p = backend.profiling(1);
      assertThat(p.unavailable())
          .containsEntry(ProfilingMetric.NVLINK_TX_BYTES, Profiling.NO_NVLINK)
          .containsEntry(ProfilingMetric.NVLINK_RX_BYTES, Profiling.NO_NVLINK)
          .containsEntry(ProfilingMetric.SM_ACTIVE, Profiling.NO_GPM)
          .hasSize(14);
      assertThat(p.value(ProfilingMetric.PCIE_RX_BYTES)).isPositive();
    }
  }
}

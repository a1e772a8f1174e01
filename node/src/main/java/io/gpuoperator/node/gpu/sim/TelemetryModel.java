package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.Telemetry;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Deterministic GPU counters: utilisation follows a slow sine wave per GPU (phase and period from
 * the seed) plus seeded per-second noise; power, temperature, memory and clocks follow utilisation;
 * energy is the integral of the noise-free power curve, so it only grows. The same seed, GPU and
 * elapsed time always give the same reading.
 */
final class TelemetryModel {
  private static final double MIN_PERIOD_S = 300;

  /** One direction of a PCIe Gen4 x16 link, the scale simulated PCIe traffic is drawn against. */
  private static final double PCIE_BYTES_PER_SECOND = 32e9;

  /** One direction of one NVLink (fourth generation: 25 GB/s). */
  private static final double NVLINK_BYTES_PER_SECOND = 25e9;

  private final HardwareProfile hw;
  private final long seed;
  private final int gpu;
  private final double periodS;
  private final double phase;
  private final double mean;
  private final double amplitude;

  TelemetryModel(HardwareProfile hw, long seed, int gpu) {
    this.hw = hw;
    this.seed = seed;
    this.gpu = gpu;
    SplittableRandom r = new SplittableRandom(mix(seed, gpu, -1));
    this.periodS = MIN_PERIOD_S + r.nextInt(600);
    this.phase = r.nextDouble() * 2 * Math.PI;
    this.mean = 0.3 + r.nextDouble() * 0.3;
    this.amplitude = 0.25;
  }

  /** Utilisation in [0,1] at an elapsed time, without noise. */
  private double baseUtil(double t) {
    return mean + amplitude * Math.sin(2 * Math.PI * t / periodS + phase);
  }

  Telemetry read(long elapsedMillis, long[] ecc) {
    double t = elapsedMillis / 1000.0;
    long second = elapsedMillis / 1000;
    SplittableRandom noise = new SplittableRandom(mix(seed, gpu, second));
    double util = clamp(baseUtil(t) + (noise.nextDouble() - 0.5) * 0.1);
    long gpuUtil = Math.round(util * 100);
    long memUtil = Math.round(clamp(util * 0.7 + noise.nextDouble() * 0.05) * 100);
    long total = hw.memoryMiB() << 20;
    long reserved = Math.min(total / 100, 512L << 20);
    long used = Math.round((total - reserved) * (0.05 + 0.6 * util));
    double idleW = hw.power().idleWatts();
    double spanW = hw.power().maxWatts() - idleW;
    long powerMw = Math.round((idleW + spanW * util) * 1000);
    // Energy: integral of idle + span * baseUtil(t) from 0 to t, in millijoules.
    double w = 2 * Math.PI / periodS;
    double integral =
        idleW * t
            + spanW * (mean * t - amplitude / w * (Math.cos(w * t + phase) - Math.cos(phase)));
    long energyMj = Math.round(integral * 1000);
    long temp = Math.round(30 + 50 * util);
    long smClock = Math.round(hw.clocks().smMhz() * (0.5 + 0.5 * Math.min(1, util * 1.5)));
    long memClock = hw.clocks().memoryMhz();
    long un = Telemetry.UNSUPPORTED;
    // Only HBM boards report a memory temperature; of the built-in models those are exactly the
    // MIG-capable ones (A100, H100, H200), while L4 and T4 carry GDDR.
    boolean hbm = hw.migCapable();
    return new Telemetry(
        gpuUtil,
        memUtil,
        hw.encoders() == 0 ? un : gpuUtil / 4,
        hw.decoders() == 0 ? un : gpuUtil / 5,
        used,
        total - reserved - used,
        reserved,
        temp,
        hbm ? temp + 5 : un,
        powerMw,
        energyMj,
        smClock,
        memClock,
        hw.ecc() ? ecc[0] : un,
        hw.ecc() ? ecc[1] : un,
        hw.ecc() ? ecc[2] : un,
        hw.ecc() ? ecc[3] : un,
        second / 3600,
        hw.remappedRows() ? 0 : un,
        hw.remappedRows() ? ecc[3] : un,
        hw.remappedRows() ? (ecc[1] > 0 ? 1 : 0) : un,
        hw.remappedRows() ? 0 : un);
  }

  /**
   * Profiling fields tied to the same utilisation as {@link #read} at that time: the graphics
   * engine is active as often as the GPU is busy ({@code DCGM_FI_DEV_GPU_UTIL}), the SM, pipe and
   * occupancy ratios are fixed shares of that (a mixed-precision training mix: tensor work mostly
   * HMMA, some FP32, little FP64), DRAM activity is the memory utilisation, and PCIe and NVLink
   * traffic grow with it. Hopper and later give the GPM fields; older GPUs report them unavailable,
   * as NVML does; boards without NVLink report its fields unavailable.
   */
  Profiling profiling(long elapsedMillis) {
    SplittableRandom noise = new SplittableRandom(mix(seed, gpu, elapsedMillis / 1000));
    // The same two draws as read(): the same utilisation and memory utilisation.
    double util = clamp(baseUtil(elapsedMillis / 1000.0) + (noise.nextDouble() - 0.5) * 0.1);
    double memory = clamp(util * 0.7 + noise.nextDouble() * 0.05);
    Map<ProfilingMetric, Double> v = new EnumMap<>(ProfilingMetric.class);
    Map<ProfilingMetric, String> why = new EnumMap<>(ProfilingMetric.class);
    if (hw.computeMajor() >= 9) {
      v.put(ProfilingMetric.GR_ENGINE_ACTIVE, util);
      v.put(ProfilingMetric.SM_ACTIVE, util * 0.9);
      v.put(ProfilingMetric.SM_OCCUPANCY, util * 0.55);
      v.put(ProfilingMetric.PIPE_TENSOR_ACTIVE, util * 0.5);
      v.put(ProfilingMetric.PIPE_TENSOR_HMMA_ACTIVE, util * 0.45);
      v.put(ProfilingMetric.PIPE_TENSOR_IMMA_ACTIVE, util * 0.03);
      v.put(ProfilingMetric.PIPE_TENSOR_DFMA_ACTIVE, util * 0.02);
      v.put(ProfilingMetric.PIPE_INT_ACTIVE, util * 0.15);
      v.put(ProfilingMetric.PIPE_FP64_ACTIVE, util * 0.04);
      v.put(ProfilingMetric.PIPE_FP32_ACTIVE, util * 0.3);
      v.put(ProfilingMetric.PIPE_FP16_ACTIVE, util * 0.12);
      v.put(ProfilingMetric.DRAM_ACTIVE, memory);
    } else {
      for (ProfilingMetric m : ProfilingMetric.values()) {
        if (m.needsGpm()) {
          why.put(m, Profiling.NO_GPM);
        }
      }
    }
    v.put(ProfilingMetric.PCIE_TX_BYTES, util * 0.1 * PCIE_BYTES_PER_SECOND);
    v.put(ProfilingMetric.PCIE_RX_BYTES, util * 0.15 * PCIE_BYTES_PER_SECOND);
    if (hw.nvLinks() > 0) {
      v.put(ProfilingMetric.NVLINK_TX_BYTES, util * 0.4 * hw.nvLinks() * NVLINK_BYTES_PER_SECOND);
      v.put(ProfilingMetric.NVLINK_RX_BYTES, util * 0.38 * hw.nvLinks() * NVLINK_BYTES_PER_SECOND);
    } else {
      why.put(ProfilingMetric.NVLINK_TX_BYTES, Profiling.NO_NVLINK);
      why.put(ProfilingMetric.NVLINK_RX_BYTES, Profiling.NO_NVLINK);
    }
    return new Profiling(v, why);
  }

  private static double clamp(double v) {
    return Math.max(0, Math.min(1, v));
  }

  private static long mix(long seed, int gpu, long tick) {
    long h = seed * 0x9E3779B97F4A7C15L + gpu * 0xC2B2AE3D27D4EB4FL + tick * 0x165667B19E3779F9L;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return h;
  }
}

package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.node.gpu.Telemetry;
import java.util.SplittableRandom;

/**
 * Deterministic GPU counters: utilisation follows a slow sine wave per GPU (phase and period from
 * the seed) plus seeded per-second noise; power, temperature, memory and clocks follow utilisation;
 * energy is the integral of the noise-free power curve, so it only grows. The same seed, GPU and
 * elapsed time always give the same reading.
 */
final class TelemetryModel {
  private static final double MIN_PERIOD_S = 300;
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

package io.gpuoperator.node.fault;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import java.time.Duration;
import java.util.List;

/**
 * The settings of the GPU fault conditions, shared by the device plugin and the DRA plugin (the
 * agent that serves a node's GPUs watches their health and reports the conditions). The recovery
 * period is the device plugin's {@link io.gpuoperator.node.gpu.HealthMonitor#RECOVERY_PERIOD}.
 */
public final class GpuFaultSettings {
  private GpuFaultSettings() {}

  public static final Setting<Boolean> CONDITIONS =
      Setting.bool("--gpu-fault-conditions")
          .env("GPU_FAULT_CONDITIONS")
          .help(
              "Report GPU faults as Node conditions (GpuXidError, GpuEccError, GpuNvlinkError,"
                  + " GpuLost, GpuThermal); needs patch on nodes/status.")
          .orElse(true);

  public static final Setting<Duration> ESCALATION_WINDOW =
      Setting.of(
              "--gpu-fault-escalation-window", Parse.duration(Duration.ZERO, Duration.ofHours(1)))
          .env("GPU_FAULT_ESCALATION_WINDOW")
          .label("DURATION")
          .help(
              "How long a thermal or power slowdown must last before it becomes a GpuThermal"
                  + " condition; a shorter one is not reported.")
          .orElse(Duration.ofSeconds(30), "30s");

  public static final Setting<Duration> POLL_INTERVAL =
      Setting.of(
              "--gpu-fault-poll-interval",
              Parse.duration(Duration.ofMillis(100), Duration.ofHours(1)))
          .env("GPU_FAULT_POLL_INTERVAL")
          .label("DURATION")
          .help(
              "How often the GPUs' row remapping and clock slowdowns are read, and a lost GPU"
                  + " noticed (XIDs and ECC events arrive at once).")
          .orElse(Duration.ofSeconds(10), "10s");

  public static final Setting<Integer> RETIRED_ROWS_THRESHOLD =
      Setting.of("--gpu-fault-retired-rows-threshold", Parse.integer(0, 1_000_000))
          .env("GPU_FAULT_RETIRED_ROWS_THRESHOLD")
          .label("N")
          .help(
              "Rows remapped for uncorrectable errors from which a GPU has a GpuEccError"
                  + " (RetiredRowsThreshold) until it is replaced; 0: no threshold.")
          .orElse(60);

  /** Every setting, for the command's options. */
  public static final List<Setting<?>> ALL =
      List.of(CONDITIONS, ESCALATION_WINDOW, POLL_INTERVAL, RETIRED_ROWS_THRESHOLD);
}

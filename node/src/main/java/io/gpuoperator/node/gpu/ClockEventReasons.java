package io.gpuoperator.node.gpu;

/**
 * NVML's {@code nvmlClocksEventReason*} bits (formerly {@code nvmlClocksThrottleReason*}), as
 * {@link GpuBackend#clockEventReasons} returns them. Only the slowdowns are faults: idle, a power
 * cap or an application clock setting are the GPU working as configured.
 */
public final class ClockEventReasons {
  private ClockEventReasons() {}

  public static final long GPU_IDLE = 0x1L;
  public static final long APPLICATIONS_CLOCKS_SETTING = 0x2L;
  public static final long SW_POWER_CAP = 0x4L;

  /** The hardware slowed the clocks: too hot, a power brake, or the power supply. */
  public static final long HW_SLOWDOWN = 0x8L;

  public static final long SYNC_BOOST = 0x10L;

  /** The driver slowed the clocks to keep the GPU or its memory under the thermal limit. */
  public static final long SW_THERMAL_SLOWDOWN = 0x20L;

  /** The hardware slowed the clocks because the GPU is too hot. */
  public static final long HW_THERMAL_SLOWDOWN = 0x40L;

  /** An external power brake (the board's power supply) slowed the clocks. */
  public static final long HW_POWER_BRAKE_SLOWDOWN = 0x80L;

  public static final long DISPLAY_CLOCK_SETTING = 0x100L;
}

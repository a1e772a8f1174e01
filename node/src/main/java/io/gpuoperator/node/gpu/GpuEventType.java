package io.gpuoperator.node.gpu;

/** The event kinds a backend can deliver, with NVML's event mask bits. */
public enum GpuEventType {
  SINGLE_BIT_ECC_ERROR(0x1L),
  DOUBLE_BIT_ECC_ERROR(0x2L),
  PSTATE_CHANGE(0x4L),
  XID_CRITICAL_ERROR(0x8L),
  CLOCK_CHANGE(0x10L),
  POWER_SOURCE_CHANGE(0x80L),
  MIG_CONFIG_CHANGE(0x100L);

  private final long mask;

  GpuEventType(long mask) {
    this.mask = mask;
  }

  /** NVML's {@code nvmlEventType*} bit. */
  public long mask() {
    return mask;
  }

  /** The event type of an NVML bit, or null when this build does not know it. */
  public static GpuEventType ofMask(long bit) {
    for (GpuEventType t : values()) {
      if (t.mask == bit) {
        return t;
      }
    }
    return null;
  }
}

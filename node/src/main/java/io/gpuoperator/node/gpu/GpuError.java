package io.gpuoperator.node.gpu;

/**
 * The error kinds a {@link GpuBackend} reports: NVML's return codes ({@code nvmlReturn_t}), with
 * the same numbers, so the simulated backend fails the way real hardware does.
 */
public enum GpuError {
  UNINITIALIZED(1),
  INVALID_ARGUMENT(2),
  NOT_SUPPORTED(3),
  NO_PERMISSION(4),
  ALREADY_INITIALIZED(5),
  NOT_FOUND(6),
  INSUFFICIENT_SIZE(7),
  INSUFFICIENT_POWER(8),
  DRIVER_NOT_LOADED(9),
  TIMEOUT(10),
  IRQ_ISSUE(11),
  LIBRARY_NOT_FOUND(12),
  FUNCTION_NOT_FOUND(13),
  CORRUPTED_INFOROM(14),
  GPU_IS_LOST(15),
  RESET_REQUIRED(16),
  OPERATING_SYSTEM(17),
  LIB_RM_VERSION_MISMATCH(18),
  IN_USE(19),
  MEMORY(20),
  NO_DATA(21),
  VGPU_ECC_NOT_SUPPORTED(22),
  INSUFFICIENT_RESOURCES(23),
  FREQ_NOT_SUPPORTED(24),
  ARGUMENT_VERSION_MISMATCH(25),
  DEPRECATED(26),
  NOT_READY(27),
  GPU_NOT_FOUND(28),
  INVALID_STATE(29),
  UNKNOWN(999);

  private final int code;

  GpuError(int code) {
    this.code = code;
  }

  /** NVML's numeric return code. */
  public int code() {
    return code;
  }

  /** The error for an NVML return code; codes this build does not know map to {@link #UNKNOWN}. */
  public static GpuError ofCode(int code) {
    for (GpuError e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return UNKNOWN;
  }
}

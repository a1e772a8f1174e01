package io.gpuoperator.node.fault;

import io.gpuoperator.api.GpuFaultContract;

/**
 * The GPU fault classes a node reports, each as one Node condition type. An immediate class is
 * reported at its first sign (a fatal XID is never a false alarm); a sustained class only once it
 * has lasted the escalation window, so a slowdown that passes on its own is never reported.
 */
public enum FaultClass {
  /** A fatal XID that is none of the classes below (the GPU needs a reset). */
  XID(GpuFaultContract.XID, true),
  /**
   * Uncorrectable memory errors: a double-bit error, a row remapping pending or failed, too many.
   */
  ECC(GpuFaultContract.ECC, true),
  /** An NVLink error (XID 74). */
  NVLINK(GpuFaultContract.NVLINK, true),
  /** The GPU has fallen off the bus (XID 79, or NVML answers GPU_IS_LOST). */
  LOST(GpuFaultContract.LOST, true),
  /** The clocks are held down by a thermal or power-brake slowdown. */
  THERMAL(GpuFaultContract.THERMAL, false);

  private final String conditionType;
  private final boolean immediate;

  FaultClass(String conditionType, boolean immediate) {
    this.conditionType = conditionType;
    this.immediate = immediate;
  }

  /** The Node condition type, e.g. {@code GpuXidError}. */
  public String conditionType() {
    return conditionType;
  }

  /** True when the first sign is reported; false when it must last the escalation window. */
  public boolean immediate() {
    return immediate;
  }

  /** The class whose condition type this is, or null. */
  public static FaultClass ofConditionType(String type) {
    for (FaultClass c : values()) {
      if (c.conditionType.equals(type)) {
        return c;
      }
    }
    return null;
  }
}

package io.gpuoperator.node.fault;

import io.gpuoperator.node.gpu.ClockEventReasons;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.XidPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns what a GPU reports into faults: events (XIDs, double-bit ECC) and readings (row remapping,
 * clock slowdowns). Which XIDs count at all is the device plugin's {@link XidPolicy}, so a device
 * the plugin keeps healthy (an application XID such as 13 or 43) is no fault here either; the table
 * below only sorts the XIDs that count into classes, from NVIDIA's XID catalogue.
 */
public final class FaultClassifier {
  /** XIDs of a class other than {@link FaultClass#XID}, with the condition reason. */
  static final Map<Long, Sorted> XID_CLASSES =
      Map.of(
          48L, new Sorted(FaultClass.ECC, "DoubleBitEcc"),
          63L, new Sorted(FaultClass.ECC, "RowRemapEvent"),
          64L, new Sorted(FaultClass.ECC, "RowRemapFailure"),
          92L, new Sorted(FaultClass.ECC, "HighSingleBitEccRate"),
          95L, new Sorted(FaultClass.ECC, "UncontainedEccError"),
          74L, new Sorted(FaultClass.NVLINK, "NvlinkError"),
          79L, new Sorted(FaultClass.LOST, "FallenOffTheBus"));

  /** A class and a reason. */
  record Sorted(FaultClass faultClass, String reason) {}

  private final XidPolicy policy;
  private final long retiredRowsThreshold;

  /**
   * @param retiredRowsThreshold rows remapped for uncorrectable errors from which the GPU's memory
   *     counts as worn out (an ECC fault until the GPU is replaced)
   */
  public FaultClassifier(XidPolicy policy, long retiredRowsThreshold) {
    this.policy = policy;
    this.retiredRowsThreshold = retiredRowsThreshold;
  }

  /** The fault an event reports, if any; events on one MIG instance blame the whole GPU. */
  public Optional<GpuFault> ofEvent(GpuEvent event, String gpuUuid) {
    if (event.type() == GpuEventType.DOUBLE_BIT_ECC_ERROR) {
      return Optional.of(
          new GpuFault(FaultClass.ECC, gpuUuid, 0, "DoubleBitEcc", "double-bit ECC error"));
    }
    if (event.type() != GpuEventType.XID_CRITICAL_ERROR || !policy.critical(event.data())) {
      return Optional.empty();
    }
    long xid = event.data();
    Sorted sorted = XID_CLASSES.getOrDefault(xid, new Sorted(FaultClass.XID, "FatalXid"));
    return Optional.of(
        new GpuFault(sorted.faultClass(), gpuUuid, xid, sorted.reason(), "XID " + xid));
  }

  /**
   * The faults a reading shows now: row remapping failed or pending, too many remapped rows, a
   * thermal or power-brake slowdown. {@code clockEventReasons} is {@link Telemetry#UNSUPPORTED}
   * where the backend does not report it.
   */
  public List<GpuFault> ofReading(String gpuUuid, Telemetry t, long clockEventReasons) {
    List<GpuFault> out = new ArrayList<>();
    if (t != null) {
      if (t.remappingFailed() == 1) {
        out.add(
            new GpuFault(FaultClass.ECC, gpuUuid, 0, "RowRemapFailure", "a row remapping failed"));
      } else if (t.remappingPending() == 1) {
        out.add(
            new GpuFault(
                FaultClass.ECC,
                gpuUuid,
                0,
                "RowRemapPending",
                "a row remapping waits for a GPU reset"));
      }
      long rows = t.remappedRowsUncorrectable();
      if (Telemetry.supported(rows) && retiredRowsThreshold > 0 && rows >= retiredRowsThreshold) {
        out.add(
            new GpuFault(
                FaultClass.ECC,
                gpuUuid,
                0,
                "RetiredRowsThreshold",
                rows
                    + " rows remapped for uncorrectable errors (threshold "
                    + retiredRowsThreshold
                    + ")"));
      }
    }
    if (clockEventReasons != Telemetry.UNSUPPORTED) {
      if ((clockEventReasons
              & (ClockEventReasons.HW_THERMAL_SLOWDOWN | ClockEventReasons.SW_THERMAL_SLOWDOWN))
          != 0) {
        out.add(
            new GpuFault(
                FaultClass.THERMAL, gpuUuid, 0, "ThermalSlowdown", "clocks held down: too hot"));
      } else if ((clockEventReasons & ClockEventReasons.HW_POWER_BRAKE_SLOWDOWN) != 0) {
        out.add(
            new GpuFault(
                FaultClass.THERMAL,
                gpuUuid,
                0,
                "PowerBrakeSlowdown",
                "clocks held down by the power brake"));
      } else if ((clockEventReasons & ClockEventReasons.HW_SLOWDOWN) != 0) {
        out.add(
            new GpuFault(
                FaultClass.THERMAL, gpuUuid, 0, "HwSlowdown", "clocks held down by the hardware"));
      }
    }
    return out;
  }

  /** The fault of a GPU whose calls answer GPU_IS_LOST. */
  public static GpuFault lost(String gpuUuid, String why) {
    return new GpuFault(FaultClass.LOST, gpuUuid, 0, "FallenOffTheBus", why);
  }
}

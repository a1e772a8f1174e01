package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.util.function.IntSupplier;

/**
 * The readings of a GPU or MIG device through NVML for {@link NvmlBackend}: utilisation, memory,
 * temperatures, power, clocks, ECC and PCIe counters. A reading the board does not have (NVML
 * answers NOT_SUPPORTED) is {@link Telemetry#UNSUPPORTED}; any other failure is typed.
 */
final class NvmlTelemetry extends NvmlConcern {

  NvmlTelemetry(NvmlSession session, NvmlGpus gpus) {
    super(session, gpus);
  }

  /** A reading that may be unsupported: NOT_SUPPORTED becomes {@link Telemetry#UNSUPPORTED}. */
  private long optional(IntSupplier call, IntSupplier value, String what) {
    int rc = call.getAsInt();
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    session.check(rc, what);
    return Integer.toUnsignedLong(value.getAsInt());
  }

  private long optionalLong(IntSupplier call, LongByReference ref, String what) {
    int rc = call.getAsInt();
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    session.check(rc, what);
    return ref.getValue();
  }

  Telemetry telemetry(int gpu) {
    Pointer h = gpus.handle(gpu);
    Memory util = Struct.UTILIZATION.allocate();
    long gpuUtil =
        optional(
            () -> nvml.nvmlDeviceGetUtilizationRates(h, util),
            () -> Field.UTIL_GPU.getInt(util),
            "nvmlDeviceGetUtilizationRates");
    long memUtil =
        gpuUtil == Telemetry.UNSUPPORTED ? Telemetry.UNSUPPORTED : Field.UTIL_MEMORY.getInt(util);
    IntByReference v = new IntByReference();
    IntByReference period = new IntByReference();
    long enc =
        optional(
            () -> nvml.nvmlDeviceGetEncoderUtilization(h, v, period),
            v::getValue,
            "nvmlDeviceGetEncoderUtilization");
    long dec =
        optional(
            () -> nvml.nvmlDeviceGetDecoderUtilization(h, v, period),
            v::getValue,
            "nvmlDeviceGetDecoderUtilization");
    Memory mem = Struct.MEMORY_V2.allocate();
    mem.setInt(Field.MEMORY_V2_VERSION.offset, NvmlStructs.MEMORY_V2_VERSION);
    long used;
    long free;
    long reserved;
    int rc = nvml.nvmlDeviceGetMemoryInfo_v2(h, mem);
    if (rc == NvmlSession.SUCCESS) {
      reserved = Field.MEMORY_V2_RESERVED.getLong(mem);
      free = Field.MEMORY_V2_FREE.getLong(mem);
      used = Field.MEMORY_V2_USED.getLong(mem);
    } else {
      Memory m1 = Struct.MEMORY.allocate();
      session.check(nvml.nvmlDeviceGetMemoryInfo(h, m1), "nvmlDeviceGetMemoryInfo");
      reserved = Telemetry.UNSUPPORTED;
      free = Field.MEMORY_FREE.getLong(m1);
      used = Field.MEMORY_USED.getLong(m1);
    }
    long temp =
        optional(
            () -> nvml.nvmlDeviceGetTemperature(h, 0, v), v::getValue, "nvmlDeviceGetTemperature");
    long memoryTemp = memoryTemperature(h);
    long power =
        optional(() -> nvml.nvmlDeviceGetPowerUsage(h, v), v::getValue, "nvmlDeviceGetPowerUsage");
    LongByReference l = new LongByReference();
    long energy =
        optionalLong(
            () -> nvml.nvmlDeviceGetTotalEnergyConsumption(h, l),
            l,
            "nvmlDeviceGetTotalEnergyConsumption");
    long sm =
        optional(
            () -> nvml.nvmlDeviceGetClockInfo(h, 1, v), v::getValue, "nvmlDeviceGetClockInfo(SM)");
    long memClock =
        optional(
            () -> nvml.nvmlDeviceGetClockInfo(h, 2, v), v::getValue, "nvmlDeviceGetClockInfo(MEM)");
    long[] ecc = new long[4];
    for (int i = 0; i < 4; i++) {
      int errorType = i % 2;
      int counterType = i / 2;
      ecc[i] =
          optionalLong(
              () -> nvml.nvmlDeviceGetTotalEccErrors(h, errorType, counterType, l),
              l,
              "nvmlDeviceGetTotalEccErrors");
    }
    long replays =
        optional(
            () -> nvml.nvmlDeviceGetPcieReplayCounter(h, v),
            v::getValue,
            "nvmlDeviceGetPcieReplayCounter");
    IntByReference corr = new IntByReference();
    IntByReference unc = new IntByReference();
    IntByReference pending = new IntByReference();
    IntByReference failed = new IntByReference();
    long remap =
        optional(
            () -> nvml.nvmlDeviceGetRemappedRows(h, corr, unc, pending, failed),
            corr::getValue,
            "nvmlDeviceGetRemappedRows");
    boolean remapOk = remap != Telemetry.UNSUPPORTED;
    return new Telemetry(
        gpuUtil,
        memUtil,
        enc,
        dec,
        used,
        free,
        reserved,
        temp,
        memoryTemp,
        power,
        energy,
        sm,
        memClock,
        ecc[0],
        ecc[1],
        ecc[2],
        ecc[3],
        replays,
        remapOk ? corr.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? unc.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? pending.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? failed.getValue() : Telemetry.UNSUPPORTED);
  }

  /** {@link io.gpuoperator.node.gpu.GpuBackend#clockEventReasons}: typed NOT_SUPPORTED included. */
  long clockEventReasons(int gpu) {
    Pointer h = gpus.handle(gpu);
    LongByReference reasons = new LongByReference();
    session.check(
        nvml.nvmlDeviceGetCurrentClocksThrottleReasons(h, reasons),
        "nvmlDeviceGetCurrentClocksThrottleReasons");
    return reasons.getValue();
  }

  Telemetry migTelemetry(int gpu, int migIndex) {
    Pointer h = gpus.handle(gpu);
    PointerByReference ref = new PointerByReference();
    session.check(
        nvml.nvmlDeviceGetMigDeviceHandleByIndex(h, migIndex, ref),
        "nvmlDeviceGetMigDeviceHandleByIndex(" + gpu + ", " + migIndex + ")");
    Pointer mig = ref.getValue();
    Memory mem = Struct.MEMORY_V2.allocate();
    mem.setInt(Field.MEMORY_V2_VERSION.offset, NvmlStructs.MEMORY_V2_VERSION);
    if (nvml.nvmlDeviceGetMemoryInfo_v2(mig, mem) == NvmlSession.SUCCESS) {
      return Telemetry.memoryOnly(
          Field.MEMORY_V2_USED.getLong(mem),
          Field.MEMORY_V2_FREE.getLong(mem),
          Field.MEMORY_V2_RESERVED.getLong(mem));
    }
    Memory m1 = Struct.MEMORY.allocate();
    session.check(
        nvml.nvmlDeviceGetMemoryInfo(mig, m1), "nvmlDeviceGetMemoryInfo(MIG " + migIndex + ")");
    return Telemetry.memoryOnly(
        Field.MEMORY_USED.getLong(m1), Field.MEMORY_FREE.getLong(m1), Telemetry.UNSUPPORTED);
  }

  /**
   * The HBM temperature through {@code nvmlDeviceGetFieldValues}: the 535 driver exports no {@code
   * nvmlDeviceGetTemperatureV}, and GDDR boards answer the field with NOT_SUPPORTED.
   */
  private long memoryTemperature(Pointer h) {
    Memory fv = Struct.FIELD_VALUE.allocate();
    fv.setInt(Field.FV_FIELD_ID.offset, NvmlStructs.FI_DEV_MEMORY_TEMP);
    int rc = nvml.nvmlDeviceGetFieldValues(h, 1, fv);
    if (rc == NvmlSession.SUCCESS) {
      rc = Field.FV_RETURN.getInt(fv);
    }
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    session.check(rc, "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)");
    return NvmlStructs.fieldValue(fv, 0);
  }
}

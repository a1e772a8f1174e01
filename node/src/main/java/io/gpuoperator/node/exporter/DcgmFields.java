package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.Telemetry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The DCGM field names this exporter knows: the ones it reads from the GPU backend (with how, in
 * DCGM's units; the {@code DCGM_FI_PROF_*} ones are the backend's {@link ProfilingMetric}s), and
 * the other DCGM fields, which it recognises but cannot read without DCGM. The one owner of "which
 * field comes from where"; the CSV reader asks it about every line.
 */
public final class DcgmFields {

  /**
   * Where a value is read. {@code DEVICE} fields belong to the whole GPU, so a MIG device's series
   * carry the parent's value (as DCGM reports device fields for GPU-instance entities); {@code
   * INSTANCE} fields are the MIG device's own (its framebuffer, its utilisation, which NVML does
   * not report under MIG).
   */
  public enum Scope {
    DEVICE,
    INSTANCE
  }

  /** A field read from {@link Telemetry}; the function returns DCGM's unit, NaN when absent. */
  public record Source(String name, Scope scope, ToDoubleFunction<Telemetry> read) {}

  /** The label-type field with the driver version. */
  public static final String DRIVER_VERSION = "DCGM_FI_DRIVER_VERSION";

  /** The last XID seen on the GPU (a gauge in DCGM: "Value of the last XID error encountered"). */
  public static final String XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS";

  /** Total framebuffer, from the device record rather than the telemetry. */
  public static final String FB_TOTAL = "DCGM_FI_DEV_FB_TOTAL";

  private static final String PROFILING_PREFIX = "DCGM_FI_PROF_";
  private static final double MIB = 1024.0 * 1024.0;

  private static final Map<String, Source> SOURCES = new LinkedHashMap<>();

  private static final Map<String, ProfilingMetric> PROFILING = new LinkedHashMap<>();

  static {
    for (ProfilingMetric m : ProfilingMetric.values()) {
      PROFILING.put(m.dcgmName(), m);
    }
  }

  static {
    device("DCGM_FI_DEV_SM_CLOCK", Telemetry::smClockMhz, 1);
    device("DCGM_FI_DEV_MEM_CLOCK", Telemetry::memoryClockMhz, 1);
    device("DCGM_FI_DEV_GPU_TEMP", Telemetry::temperatureCelsius, 1);
    device("DCGM_FI_DEV_MEMORY_TEMP", Telemetry::memoryTemperatureCelsius, 1);
    device("DCGM_FI_DEV_POWER_USAGE", Telemetry::powerMilliwatts, 1000); // mW -> W
    device("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Telemetry::energyMillijoules, 1); // mJ
    device("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", Telemetry::pcieReplays, 1);
    device("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", Telemetry::eccCorrectedVolatile, 1);
    device("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", Telemetry::eccUncorrectedVolatile, 1);
    device("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", Telemetry::eccCorrectedAggregate, 1);
    device("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", Telemetry::eccUncorrectedAggregate, 1);
    device("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", Telemetry::remappedRowsCorrectable, 1);
    device("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", Telemetry::remappedRowsUncorrectable, 1);
    device("DCGM_FI_DEV_ROW_REMAP_PENDING", Telemetry::remappingPending, 1);
    device("DCGM_FI_DEV_ROW_REMAP_FAILURE", Telemetry::remappingFailed, 1);
    instance("DCGM_FI_DEV_GPU_UTIL", Telemetry::gpuUtilizationPercent, 1);
    instance("DCGM_FI_DEV_MEM_COPY_UTIL", Telemetry::memoryUtilizationPercent, 1);
    instance("DCGM_FI_DEV_ENC_UTIL", Telemetry::encoderUtilizationPercent, 1);
    instance("DCGM_FI_DEV_DEC_UTIL", Telemetry::decoderUtilizationPercent, 1);
    instance("DCGM_FI_DEV_FB_USED", Telemetry::memoryUsedBytes, MIB); // bytes -> MiB
    instance("DCGM_FI_DEV_FB_FREE", Telemetry::memoryFreeBytes, MIB);
    instance("DCGM_FI_DEV_FB_RESERVED", Telemetry::memoryReservedBytes, MIB);
  }

  /**
   * DCGM fields this exporter recognises but does not read: they need DCGM itself (its profiling
   * module, NVLink and violation counters, vGPU licensing) or are label fields it does not fill.
   * Naming one in the CSV is reported at start-up, as is any {@code DCGM_FI_PROF_*} field.
   */
  private static final Set<String> RECOGNISED_NOT_COLLECTED =
      Set.of(
          "DCGM_FI_NVML_VERSION",
          "DCGM_FI_DEV_BRAND",
          "DCGM_FI_DEV_SERIAL",
          "DCGM_FI_DEV_NAME",
          "DCGM_FI_DEV_UUID",
          "DCGM_FI_DEV_MINOR_NUMBER",
          "DCGM_FI_DEV_OEM_INFOROM_VER",
          "DCGM_FI_DEV_ECC_INFOROM_VER",
          "DCGM_FI_DEV_POWER_INFOROM_VER",
          "DCGM_FI_DEV_INFOROM_IMAGE_VER",
          "DCGM_FI_DEV_VBIOS_VERSION",
          "DCGM_FI_DEV_VIDEO_CLOCK",
          "DCGM_FI_DEV_FAN_SPEED",
          "DCGM_FI_DEV_PSTATE",
          "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
          "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
          "DCGM_FI_DEV_POWER_MGMT_LIMIT",
          "DCGM_FI_DEV_ENFORCED_POWER_LIMIT",
          "DCGM_FI_DEV_PCIE_TX_THROUGHPUT",
          "DCGM_FI_DEV_PCIE_RX_THROUGHPUT",
          "DCGM_FI_DEV_PCIE_LINK_GEN",
          "DCGM_FI_DEV_PCIE_LINK_WIDTH",
          "DCGM_FI_DEV_FB_USED_PERCENT",
          "DCGM_FI_DEV_POWER_VIOLATION",
          "DCGM_FI_DEV_THERMAL_VIOLATION",
          "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
          "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION",
          "DCGM_FI_DEV_LOW_UTIL_VIOLATION",
          "DCGM_FI_DEV_RELIABILITY_VIOLATION",
          "DCGM_FI_DEV_RETIRED_SBE",
          "DCGM_FI_DEV_RETIRED_DBE",
          "DCGM_FI_DEV_RETIRED_PENDING",
          "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
          "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
          "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
          "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
          "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
          "DCGM_FI_DEV_VGPU_LICENSE_STATUS",
          "DCGM_FI_DEV_COMPUTE_MODE",
          "DCGM_FI_DEV_PERSISTENCE_MODE",
          "DCGM_FI_DEV_MIG_MODE",
          "DCGM_FI_DEV_ECC_CURRENT",
          "DCGM_FI_DEV_ECC_PENDING",
          "DCGM_FI_DEV_SLOWDOWN_TEMP",
          "DCGM_FI_DEV_SHUTDOWN_TEMP",
          "DCGM_FI_DEV_GPU_MAX_OP_TEMP",
          "DCGM_EXP_CLOCK_EVENTS_COUNT",
          "DCGM_EXP_XID_ERRORS_COUNT",
          "DCGM_EXP_GPU_HEALTH_STATUS",
          "DCGM_EXP_P2P_STATUS");

  private DcgmFields() {}

  private static void device(
      String name, java.util.function.ToLongFunction<Telemetry> f, double div) {
    SOURCES.put(name, new Source(name, Scope.DEVICE, t -> scaled(f.applyAsLong(t), div)));
  }

  private static void instance(
      String name, java.util.function.ToLongFunction<Telemetry> f, double div) {
    SOURCES.put(name, new Source(name, Scope.INSTANCE, t -> scaled(f.applyAsLong(t), div)));
  }

  private static double scaled(long v, double div) {
    return Telemetry.supported(v) ? v / div : Double.NaN;
  }

  /** How a telemetry field is read, if this exporter reads it from telemetry. */
  public static Optional<Source> source(String name) {
    return Optional.ofNullable(SOURCES.get(name));
  }

  /** The profiling metric a {@code DCGM_FI_PROF_*} field is, if this exporter reads it. */
  public static Optional<ProfilingMetric> profiling(String name) {
    return Optional.ofNullable(PROFILING.get(name));
  }

  /** True for fields read elsewhere than the telemetry: the XID tracker, the device record. */
  public static boolean special(String name) {
    return name.equals(XID_ERRORS) || name.equals(FB_TOTAL);
  }

  /**
   * Why a field is not collected, or empty when it is. A profiling field other than the {@link
   * ProfilingMetric}s has no NVML counterpart; another DCGM field is recognised but not read;
   * anything else is an unknown name (a typo, or a field newer than this catalogue). Whether a
   * collected field is given depends on the GPU too: that is reported per GPU while running.
   */
  public static Optional<String> whyNotCollected(String name) {
    if (SOURCES.containsKey(name) || special(name) || PROFILING.containsKey(name)) {
      return Optional.empty();
    }
    if (name.startsWith(PROFILING_PREFIX)) {
      return Optional.of(
          "a profiling field NVML does not measure (it needs DCGM's profiling module)");
    }
    if (RECOGNISED_NOT_COLLECTED.contains(name)) {
      return Optional.of("a DCGM field this exporter does not read from NVML");
    }
    return Optional.of("unknown field name");
  }
}

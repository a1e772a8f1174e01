package io.gpuoperator.node.gpu;

/**
 * One reading of a GPU's counters. A value the GPU does not support is {@link #UNSUPPORTED}.
 *
 * @param gpuUtilizationPercent GPU busy time, percent
 * @param memoryUtilizationPercent memory controller busy time, percent
 * @param encoderUtilizationPercent encoder, percent
 * @param decoderUtilizationPercent decoder, percent
 * @param memoryUsedBytes framebuffer used
 * @param memoryFreeBytes framebuffer free
 * @param memoryReservedBytes framebuffer reserved by the driver
 * @param temperatureCelsius GPU core temperature
 * @param memoryTemperatureCelsius HBM temperature ({@code NVML_FI_DEV_MEMORY_TEMP})
 * @param powerMilliwatts power draw
 * @param energyMillijoules energy since the driver was loaded
 * @param smClockMhz SM clock
 * @param memoryClockMhz memory clock
 * @param eccCorrectedVolatile single-bit ECC errors since the last reset
 * @param eccUncorrectedVolatile double-bit ECC errors since the last reset
 * @param eccCorrectedAggregate single-bit ECC errors over the GPU's life
 * @param eccUncorrectedAggregate double-bit ECC errors over the GPU's life
 * @param pcieReplays PCIe replay counter
 * @param remappedRowsCorrectable rows remapped for correctable errors
 * @param remappedRowsUncorrectable rows remapped for uncorrectable errors
 * @param remappingPending 1 when a remapping waits for a reset, else 0
 * @param remappingFailed 1 when a remapping failed, else 0
 */
public record Telemetry(
    long gpuUtilizationPercent,
    long memoryUtilizationPercent,
    long encoderUtilizationPercent,
    long decoderUtilizationPercent,
    long memoryUsedBytes,
    long memoryFreeBytes,
    long memoryReservedBytes,
    long temperatureCelsius,
    long memoryTemperatureCelsius,
    long powerMilliwatts,
    long energyMillijoules,
    long smClockMhz,
    long memoryClockMhz,
    long eccCorrectedVolatile,
    long eccUncorrectedVolatile,
    long eccCorrectedAggregate,
    long eccUncorrectedAggregate,
    long pcieReplays,
    long remappedRowsCorrectable,
    long remappedRowsUncorrectable,
    long remappingPending,
    long remappingFailed) {

  /** Marks a value the GPU does not report (NVML returned NOT_SUPPORTED). */
  public static final long UNSUPPORTED = -1;

  /** A reading with only the framebuffer reported, as NVML answers for a MIG device. */
  public static Telemetry memoryOnly(long used, long free, long reserved) {
    long u = UNSUPPORTED;
    return new Telemetry(
        u, u, u, u, used, free, reserved, u, u, u, u, u, u, u, u, u, u, u, u, u, u, u);
  }

  /** True when the value was reported. */
  public static boolean supported(long value) {
    return value != UNSUPPORTED;
  }
}

package io.gpuoperator.node.gpu;

/**
 * The DCGM profiling fields ({@code DCGM_FI_PROF_*}) a backend can give without DCGM, with DCGM's
 * units: activity as a ratio of time or cycles in [0, 1], traffic as bytes per second. The one
 * owner of "which profiling fields exist and in what unit"; the exporter exposes each under {@link
 * #dcgmName()}.
 */
public enum ProfilingMetric {
  GR_ENGINE_ACTIVE(Unit.RATIO, true),
  SM_ACTIVE(Unit.RATIO, true),
  SM_OCCUPANCY(Unit.RATIO, true),
  PIPE_TENSOR_ACTIVE(Unit.RATIO, true),
  PIPE_TENSOR_HMMA_ACTIVE(Unit.RATIO, true),
  PIPE_TENSOR_IMMA_ACTIVE(Unit.RATIO, true),
  PIPE_TENSOR_DFMA_ACTIVE(Unit.RATIO, true),
  PIPE_INT_ACTIVE(Unit.RATIO, true),
  PIPE_FP64_ACTIVE(Unit.RATIO, true),
  PIPE_FP32_ACTIVE(Unit.RATIO, true),
  PIPE_FP16_ACTIVE(Unit.RATIO, true),
  DRAM_ACTIVE(Unit.RATIO, true),
  PCIE_TX_BYTES(Unit.BYTES_PER_SECOND, false),
  PCIE_RX_BYTES(Unit.BYTES_PER_SECOND, false),
  NVLINK_TX_BYTES(Unit.BYTES_PER_SECOND, false),
  NVLINK_RX_BYTES(Unit.BYTES_PER_SECOND, false);

  /** DCGM's unit of the field. */
  public enum Unit {
    /** A fraction of time or cycles, 0 to 1 (DCGM's {@code *_ACTIVE}, {@code SM_OCCUPANCY}). */
    RATIO,
    /** Bytes per second, headers and payload (DCGM's {@code *_BYTES}). */
    BYTES_PER_SECOND
  }

  private final Unit unit;
  private final boolean gpm;

  ProfilingMetric(Unit unit, boolean gpm) {
    this.unit = unit;
    this.gpm = gpm;
  }

  public Unit unit() {
    return unit;
  }

  /**
   * True for the fields only NVML's GPU performance monitoring (GPM, Hopper and later) measures;
   * PCIe and NVLink traffic come from older NVML calls every GPU with the link answers.
   */
  public boolean needsGpm() {
    return gpm;
  }

  /** The DCGM field name, e.g. {@code DCGM_FI_PROF_SM_ACTIVE}. */
  public String dcgmName() {
    return "DCGM_FI_PROF_" + name();
  }
}

package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.ProfilingMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FieldListTest {

  /** The DCGM exporter's own default-counters.csv (its active lines, verbatim). */
  static final String DCGM_DEFAULT =
      """
      # Format
      # If line starts with a '#' it is considered a comment
      # DCGM FIELD, Prometheus metric type, help message

      # Clocks
      DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).
      DCGM_FI_DEV_MEM_CLOCK, gauge, Memory clock frequency (in MHz).
      # Temperature
      DCGM_FI_DEV_MEMORY_TEMP, gauge, Memory temperature (in C).
      DCGM_FI_DEV_GPU_TEMP,    gauge, GPU temperature (in C).
      # Power
      DCGM_FI_DEV_POWER_USAGE,              gauge, Power draw (in W).
      DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, counter, Total energy consumption since boot (in mJ).
      # PCIE
      DCGM_FI_DEV_PCIE_REPLAY_COUNTER, counter, Total number of PCIe retries.
      # Utilization (the sample period varies depending on the product)
      DCGM_FI_DEV_GPU_UTIL,      gauge, GPU utilization (in %).
      DCGM_FI_DEV_MEM_COPY_UTIL, gauge, Memory utilization (in %).
      DCGM_FI_DEV_ENC_UTIL,      gauge, Encoder utilization (in %).
      DCGM_FI_DEV_DEC_UTIL ,     gauge, Decoder utilization (in %).
      # Errors and violations
      DCGM_FI_DEV_XID_ERRORS,              gauge,   Value of the last XID error encountered.
      # Memory usage
      DCGM_FI_DEV_FB_FREE, gauge, Framebuffer memory free (in MiB).
      DCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).
      DCGM_FI_DEV_FB_RESERVED, gauge, Framebuffer memory reserved (in MiB).
      # NVLink
      DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, counter, Total number of NVLink bandwidth counters for all lanes.
      # VGPU License status
      DCGM_FI_DEV_VGPU_LICENSE_STATUS, gauge, vGPU License status
      # Remapped rows
      DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS, counter, Number of remapped rows for uncorrectable errors
      DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS,   counter, Number of remapped rows for correctable errors
      DCGM_FI_DEV_ROW_REMAP_FAILURE,           gauge,   Whether remapping of rows has failed
      # Static configuration information. These appear as labels on the other metrics
      DCGM_FI_DRIVER_VERSION,        label, Driver Version
      # DCP metrics
      DCGM_FI_PROF_GR_ENGINE_ACTIVE,   gauge, Ratio of time the graphics engine is active.
      DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, gauge, Ratio of cycles the tensor (HMMA) pipe is active.
      DCGM_FI_PROF_DRAM_ACTIVE,        gauge, Ratio of cycles the device memory interface is active sending or receiving data.
      DCGM_FI_PROF_PCIE_TX_BYTES,      gauge, The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in bytes per second.
      DCGM_FI_PROF_PCIE_RX_BYTES,      gauge, The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes per second.
      """;

  @Test
  void readsTheDcgmExportersOwnDefaultFileAndReportsWhatNeedsDcgm() {
    FieldList f = FieldList.parse(DCGM_DEFAULT, "default-counters.csv");
    assertThat(f.metrics()).hasSize(23);
    assertThat(f.metrics().get(0))
        .isEqualTo(
            new FieldList.Metric(
                "DCGM_FI_DEV_SM_CLOCK", FieldList.Type.GAUGE, "SM clock frequency (in MHz)."));
    assertThat(f.metrics())
        .filteredOn(m -> m.type() == FieldList.Type.COUNTER)
        .extracting(FieldList.Metric::name)
        .containsExactly(
            "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
            "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
            "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS");
    assertThat(f.labels()).containsExactly("DCGM_FI_DRIVER_VERSION");
    // The profiling fields are read (from NVML's GPM, PCIe and NVLink counters); per GPU, those a
    // GPU cannot give are reported while running.
    assertThat(f.profiling())
        .extracting(ProfilingMetric::dcgmName)
        .containsExactly(
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
            "DCGM_FI_PROF_DRAM_ACTIVE",
            "DCGM_FI_PROF_PCIE_TX_BYTES",
            "DCGM_FI_PROF_PCIE_RX_BYTES");
    assertThat(f.skipped())
        .containsExactly(
            "default-counters.csv:28: DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL: a DCGM field this"
                + " exporter does not read from NVML",
            "default-counters.csv:30: DCGM_FI_DEV_VGPU_LICENSE_STATUS: a DCGM field this"
                + " exporter does not read from NVML");
  }

  @Test
  void aMalformedLineStopsStartUpNamingTheLine(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("counters.csv");
    Files.writeString(
        csv,
        "# mine\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_FI_DEV_GPU_UTIL gauge\n");
    assertThatThrownBy(() -> FieldList.load(csv))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            csv
                + ":3: expected 3 comma-separated values 'DCGM field, prometheus type, help',"
                + " found 1: DCGM_FI_DEV_GPU_UTIL gauge");
    assertThatThrownBy(() -> FieldList.parse("DCGM_FI_DEV_GPU_TEMP, gaug, temp", "f.csv"))
        .hasMessage(
            "f.csv:1: unknown type 'gaug' for DCGM_FI_DEV_GPU_TEMP, expected gauge, counter or"
                + " label");
    assertThatThrownBy(
            () ->
                FieldList.parse(
                    "DCGM_FI_DEV_GPU_TEMP, gauge, a\nDCGM_FI_DEV_GPU_TEMP, gauge, b", "f.csv"))
        .hasMessage("f.csv:2: DCGM_FI_DEV_GPU_TEMP is listed twice");
    assertThatThrownBy(() -> FieldList.parse("DCGM_FI_DEV_GPU_TEMP, gauge, \"open", "f.csv"))
        .hasMessageContaining("f.csv:1: unterminated quoted value");
    assertThatThrownBy(() -> FieldList.load(dir.resolve("missing.csv")))
        .hasMessageStartingWith("counters file " + dir.resolve("missing.csv") + ": cannot read it");
  }

  /** A line it cannot read is skipped, saying why; the next one is still read. */
  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "DCGM_FI_PROF_NVOFA0_ACTIVE, gauge, OFA | DCGM_FI_PROF_NVOFA0_ACTIVE: a profiling field NVML"
            + " does not measure (it needs DCGM's profiling module) | DCGM_FI_PROF_SM_OCCUPANCY,"
            + " gauge, occupancy | DCGM_FI_PROF_SM_OCCUPANCY | occupancy",
        "DCGM_FI_DEV_GPU_UTLI, gauge, typo | DCGM_FI_DEV_GPU_UTLI: unknown field name"
            + " | DCGM_FI_DEV_GPU_UTIL, gauge, \"GPU util, in %\" | DCGM_FI_DEV_GPU_UTIL"
            + " | GPU util, in %"
      })
  void aFieldItCannotReadIsSkippedSayingWhy(
      String skipped, String why, String kept, String keptName, String keptHelp) {
    FieldList f = FieldList.parse(skipped + "\n" + kept + "\n", "mine.csv");
    assertThat(f.metrics())
        .containsExactly(new FieldList.Metric(keptName, FieldList.Type.GAUGE, keptHelp));
    assertThat(f.skipped()).containsExactly("mine.csv:1: " + why);
  }

  @Test
  void theBuiltInListHasTheIssuesFieldsAndNothingItCannotRead() {
    FieldList f = FieldList.builtIn();
    assertThat(f.skipped()).isEmpty();
    assertThat(f.labels()).containsExactly("DCGM_FI_DRIVER_VERSION");
    assertThat(f.metrics())
        .extracting(FieldList.Metric::name)
        .contains(
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_MEM_COPY_UTIL",
            "DCGM_FI_DEV_FB_USED",
            "DCGM_FI_DEV_FB_FREE",
            "DCGM_FI_DEV_FB_RESERVED",
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_MEMORY_TEMP",
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
            "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_MEM_CLOCK",
            "DCGM_FI_DEV_ENC_UTIL",
            "DCGM_FI_DEV_DEC_UTIL",
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
            "DCGM_FI_DEV_XID_ERRORS",
            "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
            "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
            "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
            "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
            "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS");
    // The DCGM exporter's default profiling set, as it ships it.
    assertThat(f.profiling())
        .containsExactly(
            ProfilingMetric.GR_ENGINE_ACTIVE,
            ProfilingMetric.PIPE_TENSOR_ACTIVE,
            ProfilingMetric.DRAM_ACTIVE,
            ProfilingMetric.PCIE_TX_BYTES,
            ProfilingMetric.PCIE_RX_BYTES);
  }
}

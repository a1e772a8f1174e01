package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code DCGM_FI_PROF_*} fields end to end: a real exporter over a simulated node serves each
 * under DCGM's name as a gauge with its help, with the simulator's value in DCGM's unit (ratio or
 * bytes per second) for every GPU, in output promtool accepts; a node whose GPUs cannot give some
 * fields (pre-Hopper, no NVLink, MIG instances) serves no series for them and says which and why,
 * in {@code gpu_exporter_field_unavailable} and the start-up log.
 */
class ProfilingFieldsTest {
  @TempDir Path dir;

  /** A fixed clock: the simulator's values at scrape time are those collected. */
  final Clock clock = Clock.fixed(Instant.parse("2026-12-06T07:00:00Z"), ZoneOffset.UTC);

  /** Every profiling field, with the DCGM exporter's help where it ships one. */
  Path everyProfilingField() throws Exception {
    String csv =
        java.util.Arrays.stream(ProfilingMetric.values())
            .map(m -> m.dcgmName() + ", gauge, " + m.name().toLowerCase() + " (DCGM unit)")
            .collect(
                Collectors.joining("\n", "DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization.\n", "\n"));
    return Files.writeString(dir.resolve("profiling.csv"), csv);
  }

  ExporterHarness exporter(String node) throws Exception {
    return new ExporterHarness(
        node,
        clock,
        dir,
        60_000,
        Map.of(
            ExporterSettings.ENV_COLLECTORS,
            everyProfilingField().toString(),
            ExporterSettings.ENV_KUBERNETES,
            "false"));
  }

  static double value(String body, String field, int gpu) {
    return ExporterHarness.sample(
        body,
        l -> l.startsWith(field + "{") && l.contains(",gpu=\"" + gpu + "\","),
        field + " for GPU " + gpu);
  }

  @Test
  void everyProfilingFieldIsServedWithTheSimulatorsValueInDcgmsUnit() throws Exception {
    try (ExporterHarness x = exporter("dgx-h100")) {
      String body = x.get("/metrics", null).body();
      for (ProfilingMetric m : ProfilingMetric.values()) {
        String name = m.dcgmName();
        assertThat(body).contains("# TYPE " + name + " gauge\n").contains("# HELP " + name + " ");
        assertThat(body.lines().filter(l -> l.startsWith(name + "{"))).as(name).hasSize(8);
        for (int gpu = 0; gpu < 8; gpu++) {
          double expected = x.gpus.profiling(gpu).value(m);
          double served = value(body, name, gpu);
          assertThat(served).as(name).isCloseTo(expected, within(Math.abs(expected) * 1e-9));
          if (m.unit() == ProfilingMetric.Unit.RATIO) {
            assertThat(served).as(name).isBetween(0.0, 1.0);
          } else {
            // Bytes per second, not KiB or MiB: a busy H100's links move gigabytes.
            assertThat(served).as(name).isGreaterThan(1e8);
          }
        }
      }
      // Ratios are the busy fraction of GPU_UTIL's percent.
      assertThat(value(body, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", 3) * 100)
          .isCloseTo(value(body, "DCGM_FI_DEV_GPU_UTIL", 3), within(0.5));
      assertThat(body).doesNotContain(UnavailableFields.METRIC + "{");
      assertThat(x.agent.exporter().unavailableFields()).isEmpty();

      // promtool: only the DCGM exporter's own camelCase label (modelName) is a finding.
      var lint = ExporterComponentTest.promtool(body.getBytes(StandardCharsets.UTF_8));
      assertThat(lint.output().lines())
          .isNotEmpty()
          .allMatch(
              l ->
                  l.matches(
                      "DCGM_FI_\\w+ label names should be written in 'snake_case' not"
                          + " 'camelCase'"));
    }
  }

  @Test
  void aPreHopperPcieNodeServesNoGpmOrNvlinkSeriesAndSaysWhy() throws Exception {
    try (ExporterHarness x = exporter("t4-x4")) {
      String body = x.get("/metrics", null).body();
      for (ProfilingMetric m : ProfilingMetric.values()) {
        boolean given = m == ProfilingMetric.PCIE_TX_BYTES || m == ProfilingMetric.PCIE_RX_BYTES;
        assertThat(body.lines().filter(l -> l.startsWith(m.dcgmName() + "{")))
            .as(m.dcgmName())
            .hasSize(given ? 4 : 0);
        if (!given) {
          String reason = m.needsGpm() ? Profiling.NO_GPM : Profiling.NO_NVLINK;
          for (int gpu = 0; gpu < 4; gpu++) {
            assertThat(body)
                .contains(
                    UnavailableFields.METRIC
                        + "{field=\""
                        + m.dcgmName()
                        + "\",gpu=\""
                        + gpu
                        + "\",reason=\""
                        + reason
                        + "\"} 1.0\n");
          }
        }
      }
      assertThat(body.lines().filter(l -> l.startsWith(UnavailableFields.METRIC + "{")))
          .hasSize(4 * 14);
      List<String> logged = x.agent.exporter().unavailableFields();
      assertThat(logged).hasSize(2);
      assertThat(logged.get(0))
          .isEqualTo(
              "GPUs 0, 1, 2, 3 (Tesla T4) cannot give DCGM_FI_PROF_GR_ENGINE_ACTIVE,"
                  + " DCGM_FI_PROF_SM_ACTIVE, DCGM_FI_PROF_SM_OCCUPANCY,"
                  + " DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE,"
                  + " DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE, DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE,"
                  + " DCGM_FI_PROF_PIPE_INT_ACTIVE, DCGM_FI_PROF_PIPE_FP64_ACTIVE,"
                  + " DCGM_FI_PROF_PIPE_FP32_ACTIVE, DCGM_FI_PROF_PIPE_FP16_ACTIVE,"
                  + " DCGM_FI_PROF_DRAM_ACTIVE: "
                  + Profiling.NO_GPM);
      assertThat(logged.get(1))
          .isEqualTo(
              "GPUs 0, 1, 2, 3 (Tesla T4) cannot give DCGM_FI_PROF_NVLINK_TX_BYTES,"
                  + " DCGM_FI_PROF_NVLINK_RX_BYTES: "
                  + Profiling.NO_NVLINK);
    }
  }

  @Test
  void gpuInstancesSayTheirProfilingIsReadPerGpu() throws Exception {
    try (ExporterHarness x = exporter("dgx-h100-mig-single")) {
      String body = x.get("/metrics", null).body();
      assertThat(body.lines().filter(l -> l.startsWith("DCGM_FI_PROF_"))).isEmpty();
      assertThat(body)
          .contains(
              UnavailableFields.METRIC
                  + "{field=\"DCGM_FI_PROF_SM_ACTIVE\",gpu=\"0\",gpu_i_id=\""
                  + x.gpus.migDevices(0).get(0).gpuInstanceId()
                  + "\",reason=\""
                  + GpuReader.NO_INSTANCE_PROFILING
                  + "\"} 1.0\n");
      // One log line for all 56 GPU instances.
      List<String> logged = x.agent.exporter().unavailableFields();
      assertThat(logged).hasSize(1);
      assertThat(logged.get(0))
          .startsWith("GPU 0 instances 7, 8, 9, 10, 11, 12, 13; GPU 1 instances 7,")
          .contains("(NVIDIA H100 80GB HBM3) cannot give DCGM_FI_PROF_GR_ENGINE_ACTIVE,")
          .endsWith(": " + GpuReader.NO_INSTANCE_PROFILING);
    }
  }
}

package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsModelTest {
  @TempDir Path dir;
  SimulatedBackend gpus;
  NodeReading reading;

  @BeforeEach
  void node() throws Exception {
    Path profile = dir.resolve("node.yaml");
    Files.writeString(
        profile,
        """
        machineType: test
        driverVersion: 550.54.15
        cudaVersion: "12.4"
        gpus:
          - model: H100-SXM5-80GB
            count: 1
          - model: H100-SXM5-80GB
            count: 1
            mig: {enabled: true, devices: {3g.40gb: 1, 1g.10gb: 2}}
          - model: L4
            count: 1
        """);
    gpus =
        new SimulatedBackend(
            HardwareProfiles.loadNode(profile),
            "node-a",
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
    gpus.injectXid(0, 79);
    reading = new GpuReader(gpus, DeviceSelection.FLEX, g -> g == 0 ? 79 : 0).read();
  }

  String text(MetricsModel model, Map<DeviceKey, List<PodRef>> holders) {
    return PrometheusTextFormatWriter.create()
        .toDebugString(MetricsModel.snapshots(model.families(reading, holders)));
  }

  @Test
  void seriesCarryTheDcgmExportersLabelsPerGpuAndPerGpuInstance() {
    MetricsModel model = new MetricsModel(FieldList.builtIn(), new MetricsModel.Options("node-a"));
    String out = text(model, Map.of());
    var gpu0 = gpus.device(0);
    var mig = gpus.migDevices(1).get(0);
    assertThat(out)
        .contains(
            "DCGM_FI_DEV_GPU_TEMP{DCGM_FI_DRIVER_VERSION=\"550.54.15\",Hostname=\"node-a\",UUID=\""
                + gpu0.uuid()
                + "\",device=\"nvidia0\",gpu=\"0\",modelName=\"NVIDIA H100 80GB HBM3\",pci_bus_id=\""
                + gpu0.pciBusId()
                + "\"} "
                + (double) gpus.telemetry(0).temperatureCelsius())
        .contains(
            "DCGM_FI_DEV_FB_USED{DCGM_FI_DRIVER_VERSION=\"550.54.15\",GPU_I_ID=\""
                + mig.gpuInstanceId()
                + "\",GPU_I_PROFILE=\""
                + mig.profile().name()
                + "\",Hostname=\"node-a\",UUID=\""
                + gpus.device(1).uuid()
                + "\",device=\"nvidia1\",gpu=\"1\"")
        .contains("DCGM_FI_DEV_XID_ERRORS{")
        .contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION untyped")
        .contains("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).")
        .doesNotContain("_total{");
    // The MIG GPU is exported as its three GPU instances, not whole.
    assertThat(out.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_TEMP{"))).hasSize(1 + 3 + 1);
    // GPU_UTIL is an instance field: NVML has none per MIG device, so MIG series lack it.
    assertThat(out.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_UTIL{"))).hasSize(2);
    // MIG series carry the parent's temperature (a device field) and their own framebuffer.
    double parentTemp = gpus.telemetry(1).temperatureCelsius();
    assertThat(
            out.lines()
                .filter(l -> l.startsWith("DCGM_FI_DEV_GPU_TEMP{") && l.contains("GPU_I_ID")))
        .allMatch(l -> l.endsWith(" " + parentTemp));
    double migUsed = gpus.migTelemetry(1, mig.index()).memoryUsedBytes() / 1048576.0;
    assertThat(out)
        .containsPattern(
            "DCGM_FI_DEV_FB_USED\\{[^}]*GPU_I_ID=\""
                + mig.gpuInstanceId()
                + "\"[^}]*\\} "
                + migUsed);
    // L4 has GDDR: no memory temperature, so no series rather than a made-up value.
    assertThat(out.lines().filter(l -> l.startsWith("DCGM_FI_DEV_MEMORY_TEMP{"))).hasSize(4);
    assertThat(out).contains("DCGM_FI_DEV_XID_ERRORS{").containsPattern("gpu=\"0\"[^}]*\\} 79.0");
  }

  @Test
  void eachHolderOfADeviceGetsItsOwnSeries() {
    MetricsModel model = new MetricsModel(FieldList.builtIn(), new MetricsModel.Options(null));
    String out =
        text(
            model,
            Map.of(
                DeviceKey.gpu(0),
                List.of(new PodRef("a", "ml", "c", "0"), new PodRef("b", "ml", "c", "1")),
                new DeviceKey(1, gpus.migDevices(1).get(1).gpuInstanceId()),
                List.of(new PodRef("infer", "serving", "server", null))));
    assertThat(out.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_UTIL{"))).hasSize(3);
    assertThat(out)
        .contains("container=\"c\",device=\"nvidia0\",gpu=\"0\",modelName=")
        .contains(
            "namespace=\"ml\",pci_bus_id=\""
                + gpus.device(0).pciBusId()
                + "\",pod=\"a\",vgpu=\"0\"}")
        .contains("pod=\"b\",vgpu=\"1\"}")
        .containsPattern(
            "DCGM_FI_DEV_FB_USED\\{[^}]*container=\"server\"[^}]*namespace=\"serving\"[^}]*pod=\"infer\"\\}")
        .doesNotContain("Hostname=");
  }

  @Test
  void openMetricsKeepsTheDcgmNamesOfCountersAndEnds() {
    MetricsModel model = new MetricsModel(FieldList.builtIn(), new MetricsModel.Options("node-a"));
    String out =
        OpenMetricsTextFormatWriter.create()
            .toDebugString(MetricsModel.snapshots(model.families(reading, Map.of())));
    assertThat(out)
        .contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown")
        .contains("\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{")
        .doesNotContain("_total{")
        .contains("# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
        .endsWith("# EOF\n");
  }
}

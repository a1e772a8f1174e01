package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuFamily;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The label set for every built-in GPU model and MIG strategy. Golden files under {@code
 * src/test/resources/golden/labels/}; regenerate with {@code -Dgolden.update=true} and review the
 * diff. A few cases are also spelled out below, key by key, from the reference's rules.
 */
class FeatureLabelerTest {
  static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
  static final Path GOLDEN = Path.of("src/test/resources/golden/labels");

  static SortedMap<String, String> labels(String nodeYaml, String strategy) {
    return labels(nodeYaml, strategy, DevicePluginConfigs.empty());
  }

  static SortedMap<String, String> labels(
      String nodeYaml, String strategy, DevicePluginConfig config) {
    SimulatedBackend b = TestNodes.backend(nodeYaml, "node-1");
    return FeatureLabeler.labels(
        GpuSnapshot.read(b), new FeatureLabeler.Settings(strategy, config, NOW, "DGX H100 (test)"));
  }

  static String node(String model, String gpu0Mig, String gpu1Mig) {
    return "machineType: test\ngpus:\n"
        + "  - {model: "
        + model
        + ", count: 1"
        + gpu0Mig
        + "}\n"
        + "  - {model: "
        + model
        + ", count: 1"
        + gpu1Mig
        + "}\n";
  }

  static String mig(String devices) {
    return ", mig: {enabled: true, devices: {" + devices + "}}";
  }

  static final List<String> GOLDEN_MODELS =
      List.of("A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-SXM-141GB", "L4", "T4");

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    // The golden label sets cover the 7-slice models with the classic profile table, plus L4/T4;
    // the other built-in models' tables are checked by the MIG geometry tests.
    for (String model : GOLDEN_MODELS) {
      HardwareProfile hw = HardwareProfiles.builtIn(model);
      out.add(Arguments.of(model + "-none", node(model, "", ""), "none"));
      if (!hw.migCapable()) {
        out.add(Arguments.of(model + "-single", node(model, "", ""), "single"));
        out.add(Arguments.of(model + "-mixed", node(model, "", ""), "mixed"));
        continue;
      }
      List<HardwareProfile.GiProfile> p = hw.mig().gpuInstanceProfiles();
      String smallest = p.get(0).name() + ": 7";
      // mig-parted's all-balanced: 2x 1-slice, 1x 2-slice, 1x 3-slice.
      String balanced =
          p.get(0).name() + ": 2, " + p.get(3).name() + ": 1, " + p.get(4).name() + ": 1";
      out.add(
          Arguments.of(
              model + "-none-mig-enabled", node(model, mig(smallest), mig(smallest)), "none"));
      out.add(Arguments.of(model + "-single", node(model, mig(smallest), mig(smallest)), "single"));
      out.add(Arguments.of(model + "-mixed", node(model, mig(balanced), mig(smallest)), "mixed"));
      out.add(
          Arguments.of(
              model + "-single-invalid-mixed-enablement",
              node(model, mig(smallest), ""),
              "single"));
      out.add(
          Arguments.of(
              model + "-single-invalid-two-profiles",
              node(model, mig(balanced), mig(balanced)),
              "single"));
      out.add(
          Arguments.of(model + "-single-invalid-empty", node(model, mig(""), mig("")), "single"));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void labelSetMatchesGolden(String name, String nodeYaml, String strategy) throws IOException {
    String actual =
        labels(nodeYaml, strategy).entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue() + "\n")
            .collect(Collectors.joining());
    Path file = GOLDEN.resolve(name + ".txt");
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(GOLDEN);
      Files.writeString(file, actual);
    }
    assertThat(file).as("golden file (regenerate with -Dgolden.update=true)").exists();
    assertThat(actual).isEqualTo(Files.readString(file));
  }

  @Test
  void h100MixedHasTheReferenceValues() {
    SortedMap<String, String> l =
        labels(
            node("H100-SXM5-80GB", mig("1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1"), mig("1g.10gb: 7")),
            "mixed");
    assertThat(l)
        .containsEntry("nvidia.com/gpu.family", "hopper")
        .containsEntry("nvidia.com/gpu.compute.major", "9")
        .containsEntry("nvidia.com/gpu.compute.minor", "0")
        .containsEntry("nvidia.com/gpu.memory", "81559")
        .containsEntry("nvidia.com/gpu.count", "2")
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
        .containsEntry("nvidia.com/gpu.replicas", "1")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "none")
        .containsEntry("nvidia.com/mig.strategy", "mixed")
        .containsEntry("nvidia.com/mig.capable", "true")
        .containsEntry("nvidia.com/mig-1g.10gb.count", "9")
        .containsEntry("nvidia.com/mig-1g.10gb.product", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb")
        .containsEntry("nvidia.com/mig-1g.10gb.memory", "9728")
        .containsEntry("nvidia.com/mig-1g.10gb.multiprocessors", "16")
        .containsEntry("nvidia.com/mig-1g.10gb.slices.gi", "1")
        .containsEntry("nvidia.com/mig-2g.20gb.count", "1")
        .containsEntry("nvidia.com/mig-3g.40gb.count", "1")
        .containsEntry("nvidia.com/mig-3g.40gb.slices.ci", "3")
        .containsEntry("nvidia.com/cuda.driver-version.full", "550.54.15")
        .containsEntry("nvidia.com/cuda.driver.rev", "15")
        .containsEntry("nvidia.com/cuda.runtime-version.full", "12.4")
        .containsEntry("nvidia.com/cuda.runtime.major", "12")
        .containsEntry("nvidia.com/gpu.machine", "DGX-H100-test")
        .containsEntry("nvidia.com/gpu.mode", "compute")
        .containsEntry("nvidia.com/gfd.timestamp", Long.toString(NOW.getEpochSecond()))
        .containsEntry("nvidia.com/mps.capable", "false")
        // The operator's label, not feature discovery's (as the original's GFD).
        .doesNotContainKey("nvidia.com/gpu.present");
    assertThat(l.keySet()).noneMatch(k -> k.startsWith("nvidia.com/gpu.slices"));
  }

  @Test
  void singleOverridesGpuLabelsAndInvalidSingleIsMarked() {
    SortedMap<String, String> single =
        labels(node("A100-SXM4-40GB", mig("1g.5gb: 7"), mig("1g.5gb: 7")), "single");
    assertThat(single)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb")
        .containsEntry("nvidia.com/gpu.count", "14")
        .containsEntry("nvidia.com/gpu.memory", "4864")
        .containsEntry("nvidia.com/gpu.multiprocessors", "14")
        .containsEntry("nvidia.com/gpu.engines.copy", "1")
        .containsEntry("nvidia.com/gpu.family", "ampere")
        .containsEntry("nvidia.com/mig.strategy", "single");
    assertThat(single.keySet()).noneMatch(k -> k.startsWith("nvidia.com/mig-"));
    SortedMap<String, String> invalid =
        labels(node("A100-SXM4-40GB", mig("1g.5gb: 7"), ""), "single");
    assertThat(invalid)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-INVALID")
        .containsEntry("nvidia.com/gpu.count", "0")
        .containsEntry("nvidia.com/gpu.replicas", "0")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "")
        .containsEntry("nvidia.com/gpu.memory", "0");
  }

  @Test
  void noneIgnoresMigAndNonMigModelsHaveNoMigLabels() {
    SortedMap<String, String> t4 = labels(node("T4", "", ""), "none");
    assertThat(t4)
        .containsEntry("nvidia.com/gpu.product", "Tesla-T4")
        .containsEntry("nvidia.com/gpu.family", "turing")
        .containsEntry("nvidia.com/gpu.memory", "15360")
        .containsEntry("nvidia.com/mig.capable", "false")
        .doesNotContainKey("nvidia.com/mig.strategy");
    assertThat(labels(node("L4", "", ""), "none"))
        .containsEntry("nvidia.com/gpu.family", "ada-lovelace");
  }

  /** A device-plugin config file with only {@code sharing:} (its body indented by two). */
  private static DevicePluginConfig sharing(String body) {
    return DevicePluginConfigs.parse("version: v1\nsharing:\n" + body, "c");
  }

  @Test
  void sharingAddsSharedSuffixReplicasAndStrategy() {
    DevicePluginConfig ts =
        sharing("  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 4}]\n");
    SortedMap<String, String> l = labels(node("A100-SXM4-40GB", "", ""), "none", ts);
    assertThat(l)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-SHARED")
        .containsEntry("nvidia.com/gpu.replicas", "4")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "time-slicing")
        .containsEntry("nvidia.com/mps.capable", "false");
    DevicePluginConfig renamed =
        sharing(
            "  mps:\n    renameByDefault: true\n    resources: [{name: nvidia.com/gpu, replicas: 2}]\n");
    SortedMap<String, String> m = labels(node("L4", "", ""), "none", renamed);
    assertThat(m)
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-L4")
        .containsEntry("nvidia.com/gpu.sharing-strategy", "mps")
        .containsEntry("nvidia.com/mps.capable", "true");
    assertThatThrownBy(() -> labels(node("H100-SXM5-80GB", mig("1g.10gb: 7"), ""), "none", renamed))
        .isInstanceOf(FeatureLabeler.LabelingException.class);
  }

  @Test
  void sanitisingFollowsTheOriginal() {
    assertThat(LabelValues.sanitise("  NVIDIA  A100-SXM4-40GB (rev a1)+ "))
        .isEqualTo("NVIDIA-A100-SXM4-40GB-rev-a1");
    assertThat(LabelValues.product("Tesla T4", "MIG", "1g.5gb+me"))
        .isEqualTo("Tesla-T4-MIG-1g.5gbme");
    assertThat(LabelValues.valid("-" + "x".repeat(70), "unknown")).hasSize(63);
    assertThat(GpuFamily.of(7, 0)).isEqualTo("volta");
    assertThat(GpuFamily.of(4, 0)).isEqualTo("undefined");
  }

  /**
   * GFD's IMEX labeler: GPUs in one NVLink fabric clique give {@code nvidia.com/gpu.clique} =
   * {@code <cluster uuid>.<clique id>}; GPUs without a fabric give none, and GPUs naming two
   * cliques give none (GFD warns and labels nothing rather than failing the pass).
   */
  @Test
  void gpusInOneFabricCliqueGetTheCliqueLabel() {
    String gb200 =
        "driverVersion: 570.124.06\ncudaVersion: \"12.8\"\n"
            + "gpus: [{model: GB200-186GB, count: 4}]\n";
    assertThat(labels(gb200, "none"))
        .containsEntry(GfdLabels.CLIQUE, "5c8a1d3e-0000-4000-8000-000000000001.1");
    assertThat(labels(node("H100-SXM5-80GB", "", ""), "none")).doesNotContainKey(GfdLabels.CLIQUE);

    SimulatedBackend b = new SimulatedBackend(HardwareProfiles.parseNode(gb200, "t"), "node-1");
    GpuSnapshot one = GpuSnapshot.read(b);
    FeatureLabeler.Settings settings =
        new FeatureLabeler.Settings("none", DevicePluginConfigs.empty(), NOW, null);
    for (GpuFabric other :
        List.of(
            new GpuFabric("5c8a1d3e-0000-4000-8000-000000000001", 2),
            new GpuFabric("7b968a6d-c8aa-45e1-9e07-e1e51be99c31", 1))) {
      List<GpuSnapshot.Gpu> gpus = new ArrayList<>(one.gpus());
      GpuSnapshot.Gpu last = gpus.remove(gpus.size() - 1);
      gpus.add(
          new GpuSnapshot.Gpu(
              last.device(), last.migEnabled(), last.migDevices(), Optional.of(other)));
      GpuSnapshot split = new GpuSnapshot(one.driverVersion(), one.cudaDriverVersion(), gpus);
      assertThat(FeatureLabeler.labels(split, settings))
          .as("%s", other)
          .doesNotContainKey(GfdLabels.CLIQUE);
    }
  }
}

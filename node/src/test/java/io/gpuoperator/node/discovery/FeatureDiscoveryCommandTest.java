package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.CommandLines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FeatureDiscoveryCommandTest {
  @TempDir Path dir;

  private record Run(int rc, String out) {}

  private Run run(Map<String, String> env, String... args) {
    FeatureDiscoveryCommand cmd = new FeatureDiscoveryCommand();
    cmd.withEnv(env);
    CommandLine cl = CommandLines.configure(new CommandLine(cmd));
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(out));
    int rc = cl.execute(args);
    return new Run(rc, out.toString());
  }

  @Test
  void oneshotWritesTheFeatureFileForASimulatedNode() throws Exception {
    Path file = dir.resolve("features.d/gfd");
    Path sysfs = dir.resolve("sys");
    fakeGpu(sysfs, "0000:18:00.0", "0x030200");
    Run r =
        run(
            Map.of("GFD_MIG_STRATEGY", "mixed", "GFD_NO_TIMESTAMP", "true"),
            "--backend=simulated",
            "--node-profile=dgx-h100-mig-mixed",
            "--oneshot",
            "--output=file",
            "--output-file=" + file,
            "--sysfs-root=" + sysfs);
    assertThat(r.rc()).as(r.out()).isZero();
    List<String> lines = Files.readAllLines(file);
    assertThat(lines)
        .contains(
            "nvidia.com/mig.strategy=mixed",
            "nvidia.com/mig-1g.10gb.count=16",
            "nvidia.com/mig-3g.40gb.count=8",
            "nvidia.com/gpu.count=8",
            "nvidia.com/gpu.machine=DGXH100")
        .noneMatch(l -> l.startsWith("nvidia.com/gfd.timestamp"))
        // gpu.present is the operator's label, not feature discovery's.
        .noneMatch(l -> l.startsWith("nvidia.com/gpu.present"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
    assertThat(Files.list(file.getParent())).hasSize(1); // no temp file left
  }

  @Test
  void badInputIsRejectedWithTheSettingNamed() throws Exception {
    Run r =
        run(Map.of("GFD_SLEEP_INTERVAL", "often"), "--backend=simulated", "--node-profile=l4-x1");
    assertThat(r.rc()).isEqualTo(2);
    assertThat(r.out())
        .isEqualTo(
            "feature-discovery: GFD_SLEEP_INTERVAL: expected a duration such as 60s, 1m30s, 500ms"
                + " or infinite, got \"often\"\n");
    Run p = run(Map.of(), "--backend=simulated");
    assertThat(p.rc()).isEqualTo(2);
    assertThat(p.out())
        .isEqualTo(
            "feature-discovery: --backend: the simulated backend needs --node-profile (or"
                + " GPU_NODE_PROFILE)\n");
    Path cfg = dir.resolve("cfg.yaml");
    Files.writeString(cfg, "version: v1\nflags:\n  migStrategy: sometimes\n");
    Run c =
        run(Map.of("CONFIG_FILE", cfg.toString()), "--backend=simulated", "--node-profile=l4-x1");
    assertThat(c.rc()).isEqualTo(2);
    assertThat(c.out())
        .isEqualTo(
            "feature-discovery: "
                + cfg
                + ":3:3 flags.migStrategy: unknown MIG strategy \"sometimes\"; expected none,"
                + " single or mixed\n");
    Files.writeString(cfg, "version: v1\nflags: {gfd: {sleepInterval: soon}}\n");
    Run d =
        run(Map.of("CONFIG_FILE", cfg.toString()), "--backend=simulated", "--node-profile=l4-x1");
    assertThat(d.rc()).isEqualTo(2);
    assertThat(d.out()).contains(cfg + ":2:15 flags.gfd.sleepInterval: expected a duration");
    Run n =
        run(
            Map.of(),
            "--backend=simulated",
            "--node-profile=nope.yaml",
            "--oneshot",
            "--output=file");
    assertThat(n.rc()).isEqualTo(2);
    assertThat(n.out())
        .isEqualTo(
            "feature-discovery: --node-profile: nope.yaml: cannot read: no such file or"
                + " directory\n");
  }

  @Test
  void nvmlBackendWithoutADriverFailsOrLabelsWithoutGpus() throws Exception {
    Path file = dir.resolve("gfd");
    Run r =
        run(
            Map.of(),
            "--nvml-library=/nonexistent/libnvidia-ml.so.1",
            "--oneshot",
            "--output=file",
            "--output-file=" + file);
    assertThat(r.rc()).isEqualTo(1);
    assertThat(r.out())
        .contains("cannot start the GPU backend")
        .contains("/nonexistent/libnvidia-ml.so.1");
    Run tolerant =
        run(
            Map.of("GFD_FAIL_ON_INIT_ERROR", "false"),
            "--nvml-library=/nonexistent/libnvidia-ml.so.1",
            "--oneshot",
            "--output=file",
            "--output-file=" + file,
            "--sysfs-root=" + dir.resolve("empty-sys"));
    assertThat(tolerant.rc()).as(tolerant.out()).isZero();
    assertThat(Files.readAllLines(file))
        .singleElement()
        .asString()
        .startsWith("nvidia.com/gfd.timestamp=");
  }

  @Test
  void precedenceIsFlagThenEnvThenConfigThenDefault() {
    var config =
        Documents.parse(
            "version: v1\nflags:\n  migStrategy: single\n  gfd: {sleepInterval: 5m, oneshot: true}\n",
            "c");
    DiscoverySettings fromConfig =
        DiscoverySettings.resolve(Settings.ofEnv(Map.of()).withFile(config));
    assertThat(fromConfig.migStrategy()).isEqualTo("single");
    assertThat(fromConfig.sleepInterval()).isEqualTo(Duration.ofMinutes(5));
    assertThat(fromConfig.oneshot()).isTrue();
    assertThat(fromConfig.output()).isEqualTo("auto");
    DiscoverySettings fromEnv =
        DiscoverySettings.resolve(
            Settings.ofEnv(
                    Map.of(
                        "MIG_STRATEGY",
                        "mixed",
                        "GFD_ONESHOT",
                        "false",
                        "GFD_USE_NODE_FEATURE_API",
                        "false"))
                .withFile(config));
    assertThat(fromEnv.migStrategy()).isEqualTo("mixed");
    assertThat(fromEnv.oneshot()).isFalse();
    assertThat(fromEnv.output()).isEqualTo("file");
    DiscoverySettings fromFlag =
        DiscoverySettings.resolve(
            Settings.of(
                Map.of("--mig-strategy", "none", "--oneshot", "true", "--sleep-interval", "10s"),
                Map.of("MIG_STRATEGY", "mixed"),
                config));
    assertThat(fromFlag.migStrategy()).isEqualTo("none");
    assertThat(fromFlag.sleepInterval()).isEqualTo(Duration.ofSeconds(10));
    DiscoverySettings defaults = DiscoverySettings.resolve(Settings.ofEnv(Map.of()));
    assertThat(defaults.sleepInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(defaults.outputFile())
        .isEqualTo(Path.of("/etc/kubernetes/node-feature-discovery/features.d/gfd"));
    assertThatThrownBy(
            () ->
                DiscoverySettings.resolve(
                    Settings.ofEnv(Map.of("GFD_ONESHOT", "maybe")).withFile(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("GFD_ONESHOT: expected true or false, got \"maybe\"");
  }

  @Test
  void nodeLabelPatchTouchesOnlyWhatDiffers() {
    TreeMap<String, String> desired =
        new TreeMap<>(Map.of("nvidia.com/a", "1", "nvidia.com/b", "2"));
    Map<String, String> current =
        Map.of(
            "nvidia.com/a",
            "1",
            "nvidia.com/b",
            "1",
            "nvidia.com/old",
            "x",
            "user",
            "keep",
            "nvidia.com/gpu.deploy.driver",
            "true");
    Optional<Map<String, Object>> patch =
        NodeLabelPatch.compute(desired, current, "nvidia.com/a,nvidia.com/old");
    assertThat(patch).isPresent();
    @SuppressWarnings("unchecked")
    Map<String, Object> md = (Map<String, Object>) patch.get().get("metadata");
    @SuppressWarnings("unchecked")
    Map<String, Object> labels = (Map<String, Object>) md.get("labels");
    assertThat(labels).containsOnlyKeys("nvidia.com/b", "nvidia.com/old");
    assertThat(labels.get("nvidia.com/old")).isNull();
    assertThat(md.get("annotations"))
        .isEqualTo(Map.of(GfdLabels.MANAGED_LABELS_ANNOTATION, "nvidia.com/a,nvidia.com/b"));
    Map<String, String> done = Map.of("nvidia.com/a", "1", "nvidia.com/b", "2", "user", "keep");
    assertThat(NodeLabelPatch.compute(desired, done, "nvidia.com/a,nvidia.com/b")).isEmpty();
  }

  static void fakeGpu(Path sysfs, String address, String cls) throws Exception {
    fakePci(sysfs, address, "0x10de", "0x2330", cls);
  }

  static void fakePci(Path sysfs, String address, String vendor, String device, String cls)
      throws Exception {
    Path d = sysfs.resolve("bus/pci/devices").resolve(address);
    Files.createDirectories(d);
    Files.writeString(d.resolve("vendor"), vendor + "\n");
    Files.writeString(d.resolve("device"), device + "\n");
    Files.writeString(d.resolve("class"), cls + "\n");
  }
}

package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.files.AtomicFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Install and uninstall against real containerd binaries: what containerd itself reads ({@code
 * config dump}) after install has the NVIDIA runtimes, with the default runtime's options and
 * {@code runc} still declared; after uninstall it is what it was, and the file is byte for byte the
 * original.
 */
class ContainerdComponentTest {
  static final String V2_CRI = "[plugins.\"io.containerd.grpc.v1.cri\"";
  static final String V3_CRI = "[plugins.\"io.containerd.cri.v1.runtime\"";

  @TempDir Path dir;

  /** A version-2 config as distributions ship it, with comments and other plugins. */
  static final String V2_CONFIG =
      """
      # Managed by the node image; edit with care.
      version = 2
      root = "/var/lib/containerd"

      [plugins."io.containerd.gc.v1.scheduler"]
        pause_threshold = 0.03

      [plugins."io.containerd.grpc.v1.cri"]
        sandbox_image = "registry.k8s.io/pause:3.9"

      [plugins."io.containerd.grpc.v1.cri".containerd]
        default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = true
      """;

  /** Version 3 (containerd 2.x). */
  static final String V3_CONFIG =
      """
      version = 3

      [plugins."io.containerd.cri.v1.runtime".containerd]
        default_runtime_name = "runc"

      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"

      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        SystemdCgroup = true
      """;

  /** Version 1: no version key, plugin "cri", no imports. */
  static final String V1_CONFIG =
      """
      [plugins.cri]
        sandbox_image = "registry.k8s.io/pause:3.9"

      [plugins.cri.containerd]
        default_runtime_name = "runc"

      [plugins.cri.containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"

      [plugins.cri.containerd.runtimes.runc.options]
        SystemdCgroup = true
      """;

  /** Other runtimes already there (kata, crun), which must survive. */
  static final String OTHER_RUNTIMES = V2_CONFIG + otherRuntimes("io.containerd.grpc.v1.cri");

  /** Version 3 with CDI turned off by the node image (containerd 2.0 defaults it to on). */
  static final String V3_CDI_OFF =
      V3_CONFIG
          + """

          [plugins."io.containerd.cri.v1.runtime"]
            enable_cdi = false
          """;

  /** The same other runtimes in a version-3 config (containerd 2.x). */
  static final String OTHER_RUNTIMES_V3 = V3_CONFIG + otherRuntimes("io.containerd.cri.v1.runtime");

  static String otherRuntimes(String criPlugin) {
    return """

        [plugins."%1$s".containerd.runtimes.kata]
          runtime_type = "io.containerd.kata.v2"
          privileged_without_host_devices = true

        [plugins."%1$s".containerd.runtimes.crun]
          runtime_type = "io.containerd.runc.v2"

        [plugins."%1$s".containerd.runtimes.crun.options]
          BinaryName = "/usr/bin/crun"
        """
        .formatted(criPlugin);
  }

  static Stream<Containerd> all() {
    return Containerd.all().stream();
  }

  static Stream<Containerd> v2x() {
    return Containerd.v2x().stream();
  }

  /** A version-2 config on every containerd (2.x migrates it), a version-3 one on 2.x. */
  static Stream<Arguments> configs() {
    return Stream.concat(
        all().map(c -> Arguments.of(c, "version 2", V2_CONFIG)),
        v2x().map(c -> Arguments.of(c, "version 3", V3_CONFIG)));
  }

  static Stream<Arguments> otherRuntimes() {
    return Stream.concat(
        all().map(c -> Arguments.of(c, "version 2", OTHER_RUNTIMES)),
        v2x().map(c -> Arguments.of(c, "version 3", OTHER_RUNTIMES_V3)));
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("configs")
  void dropInWithImportsAddsRuntimesCopiedFromTheDefaultAndUninstallRestoresTheDump(
      Containerd containerd, String version, String original) throws Exception {
    containerd.require();
    Path config = write("config.toml", original);
    String before = containerd.dumpText(config);

    var outcome = configurer(config, false).install();

    assertThat(outcome.changed()).isTrue();
    ObjectNode after = containerd.dump(config);
    JsonNode runtimes = Containerd.runtimes(after);
    for (String name : List.of("nvidia", "nvidia-cdi", "nvidia-legacy")) {
      assertThat(runtimes.path(name).path("runtime_type").asText())
          .isEqualTo("io.containerd.runc.v2");
      assertThat(runtimes.path(name).path("options").path("SystemdCgroup").asBoolean())
          .as("%s copies runc's SystemdCgroup", name)
          .isTrue();
    }
    assertThat(runtimes.path("nvidia").path("options").path("BinaryName").asText())
        .isEqualTo("/usr/local/nvidia/toolkit/nvidia-container-runtime");
    assertThat(runtimes.has("runc")).as("runc still declared").isTrue();
    assertThat(
            Containerd.criSection(after).path("containerd").path("default_runtime_name").asText())
        .isEqualTo("nvidia");
    // The main file only gained the import; the rest is byte for byte.
    String main = Files.readString(config);
    assertThat(main.replace("imports = [\"" + dropInHost() + "\"]\n", "")).isEqualTo(original);

    configurer(config, false).uninstall();

    assertThat(containerd.dumpText(config)).isEqualTo(before);
    assertThat(Files.readString(config)).isEqualTo(original);
    assertThat(dropIn()).doesNotExist();
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .containsExactlyInAnyOrder("config.toml", "conf.d");
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("otherRuntimes")
  void otherRuntimesAndPluginsSurvive(Containerd containerd, String version, String original)
      throws Exception {
    containerd.require();
    Path config = write("config.toml", original);
    String before = containerd.dumpText(config);

    configurer(config, false).install();

    JsonNode runtimes = Containerd.runtimes(containerd.dump(config));
    assertThat(runtimes.path("kata").path("runtime_type").asText())
        .isEqualTo("io.containerd.kata.v2");
    assertThat(runtimes.path("crun").path("options").path("BinaryName").asText())
        .isEqualTo("/usr/bin/crun");
    assertThat(runtimes.has("nvidia")).isTrue();
    assertThat(Files.readString(config).replace("imports = [\"" + dropInHost() + "\"]\n", ""))
        .isEqualTo(original);

    configurer(config, false).uninstall();
    assertThat(containerd.dumpText(config)).isEqualTo(before);
    assertThat(Files.readString(config)).isEqualTo(original);
  }

  @Test
  void versionOneIsEditedInPlaceAndRevertedByteForByte() throws Exception {
    Containerd containerd = Containerd.v16().require();
    Path config = write("config.toml", V1_CONFIG);
    String before = containerd.dumpText(config);

    configurer(config, true).install();

    assertThat(dropIn()).doesNotExist();
    String text = Files.readString(config);
    assertThat(text)
        .contains("  sandbox_image = \"registry.k8s.io/pause:3.9\"\n  enable_cdi = true\n");
    assertThat(text)
        .startsWith(
            V1_CONFIG
                .replace(
                    "pause:3.9\"\n",
                    "pause:3.9\"\n  enable_cdi = true\n"
                        + "  cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\", \"/run/cdi-out\"]\n")
                .replace("default_runtime_name = \"runc\"", "default_runtime_name = \"nvidia\""));
    assertThat(text).contains("[plugins.cri.containerd.runtimes.nvidia]");
    JsonNode runtimes = Containerd.runtimes(containerd.dump(config));
    assertThat(runtimes.path("nvidia").path("options").path("SystemdCgroup").asBoolean()).isTrue();
    assertThat(runtimes.path("nvidia").path("options").path("BinaryName").asText())
        .endsWith("/nvidia-container-runtime");
    assertThat(runtimes.has("runc")).isTrue();

    configurer(config, true).uninstall();
    assertThat(containerd.dumpText(config)).isEqualTo(before);
    assertThat(Files.readString(config)).isEqualTo(V1_CONFIG);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("all")
  void noConfigFileGetsOneThatDeclaresRuncAndUninstallRemovesIt(Containerd containerd)
      throws Exception {
    containerd.require();
    Path config = dir.resolve("config.toml");

    configurer(config, false).install();

    assertThat(Files.readString(config)).startsWith("version = 2\nimports = [");
    JsonNode runtimes = Containerd.runtimes(containerd.dump(config));
    // Defining any runtime replaces containerd's built-in map: runc must be declared too.
    assertThat(runtimes.path("runc").path("runtime_type").asText())
        .isEqualTo("io.containerd.runc.v2");
    assertThat(runtimes.has("nvidia")).isTrue();

    configurer(config, false).uninstall();
    assertThat(config).doesNotExist();
    assertThat(dropIn()).doesNotExist();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("v2x")
  void versionThreeOnContainerd2HonoursCdiSettings(Containerd containerd) throws Exception {
    containerd.require();
    Path config = write("config.toml", V3_CDI_OFF);
    String before = containerd.dumpText(config);
    if (containerd.readsEnableCdi()) {
      assertThat(Containerd.criSection(TomlTree.parse(before)).path("enable_cdi").asBoolean(true))
          .as("the node's enable_cdi = false is read")
          .isFalse();
    }

    configurer(config, true).install();

    assertThat(Files.readString(dropIn()))
        .contains(V3_CRI.substring(1), "enable_cdi = true")
        .doesNotContain(V2_CRI.substring(1));
    ObjectNode after = containerd.dump(config);
    JsonNode cri = after.path("plugins").path("io.containerd.cri.v1.runtime");
    assertThat(
            cri.path("containerd")
                .path("runtimes")
                .path("nvidia")
                .path("options")
                .path("SystemdCgroup")
                .asBoolean())
        .isTrue();
    assertThat(cri.path("containerd").path("runtimes").has("runc")).isTrue();
    assertThat(cri.path("cdi_spec_dirs"))
        .extracting(JsonNode::asText)
        .containsExactly("/etc/cdi", "/var/run/cdi", "/run/cdi-out");
    if (containerd.readsEnableCdi()) {
      assertThat(cri.path("enable_cdi").isBoolean()).as("enable_cdi in the dump").isTrue();
      assertThat(cri.path("enable_cdi").asBoolean()).as("the drop-in turns CDI on").isTrue();
    } else {
      // containerd 2.1+ always enables CDI: it drops enable_cdi while migrating
      // (plugins/cri/runtime).
      assertThat(cri.has("enable_cdi")).isFalse();
    }

    configurer(config, true).uninstall();
    assertThat(containerd.dumpText(config)).isEqualTo(before);
    assertThat(Files.readString(config)).isEqualTo(V3_CDI_OFF);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("v2x")
  void withoutNvidiasBinariesTheRuntimesRunTheDefaultRuntimesBinary(Containerd containerd)
      throws Exception {
    containerd.require();
    Path config = write("config.toml", V3_CDI_OFF);
    var settings =
        new RuntimeSettings(
            RuntimeSettings.nvidiaRuntimes("nvidia", "/usr/local/nvidia/toolkit", false),
            "nvidia",
            true,
            true,
            List.of("/etc/cdi", "/var/run/cdi"),
            dropInHost());
    new ContainerdConfigurer(
            config, dropIn(), settings, Optional::empty, AtomicFile.BeforeRename.NONE)
        .install();

    JsonNode runtimes =
        containerd
            .dump(config)
            .path("plugins")
            .path("io.containerd.cri.v1.runtime")
            .path("containerd")
            .path("runtimes");
    for (String name : List.of("nvidia", "nvidia-cdi", "nvidia-legacy")) {
      JsonNode r = runtimes.path(name);
      assertThat(r.path("runtime_type").asText()).as(name).isEqualTo("io.containerd.runc.v2");
      assertThat(r.path("options").path("BinaryName").asText("")).as(name).isEmpty();
      assertThat(r.path("options").path("SystemdCgroup").asBoolean()).as(name).isTrue();
    }
  }

  @Test
  void cdiOnContainerd16IsWrittenButNotReadByIt() throws Exception {
    // containerd 1.6 predates CDI: it accepts and ignores enable_cdi (third-party.md §4).
    Containerd containerd = Containerd.v16().require();
    Path config = write("config.toml", V2_CONFIG);
    configurer(config, true).install();
    assertThat(Files.readString(dropIn())).contains("enable_cdi = true", "cdi_spec_dirs = [");
    assertThat(Containerd.criSection(containerd.dump(config)).has("enable_cdi")).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("all")
  void installTwiceChangesNothingTheSecondTime(Containerd containerd) throws Exception {
    containerd.require();
    Path config = write("config.toml", V2_CONFIG);
    configurer(config, true).install();
    byte[] main = Files.readAllBytes(config);
    byte[] drop = Files.readAllBytes(dropIn());
    var modified = Files.getLastModifiedTime(dropIn());

    var second = configurer(config, true).install();

    assertThat(second.changed()).isFalse();
    assertThat(Files.readAllBytes(config)).isEqualTo(main);
    assertThat(Files.readAllBytes(dropIn())).isEqualTo(drop);
    assertThat(Files.getLastModifiedTime(dropIn())).isEqualTo(modified);
  }

  @Test
  void anImportGlobThatCoversTheDropInLeavesTheMainFileAlone() throws Exception {
    Containerd containerd = Containerd.v16().require();
    String text = "version = 2\nimports = [\"" + dir.resolve("conf.d") + "/*.toml\"]\n";
    Path config = write("config.toml", text);
    configurer(config, false).install();
    assertThat(Files.readString(config)).isEqualTo(text);
    assertThat(Containerd.runtimes(containerd.dump(config)).has("nvidia")).isTrue();
    configurer(config, false).uninstall();
    assertThat(Files.readString(config)).isEqualTo(text);
    assertThat(dropIn()).doesNotExist();
  }

  @Test
  void configDumpAsSourceCopiesTheWholeEffectiveCriSection() throws Exception {
    Containerd containerd = Containerd.v16().require();
    Path config = write("config.toml", V2_CONFIG);
    var c =
        new ContainerdConfigurer(
            config,
            dropIn(),
            settings(false),
            () -> {
              try {
                return Optional.of(containerd.dump(config));
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            },
            AtomicFile.BeforeRename.NONE);
    c.install();
    // Defaults only the dump knows (e.g. max_container_log_line_size) are carried into the drop-in.
    assertThat(Files.readString(dropIn()))
        .contains("max_container_log_line_size", "SystemdCgroup = true");
    assertThat(Containerd.runtimes(containerd.dump(config)).has("nvidia")).isTrue();
  }

  private ContainerdConfigurer configurer(Path config, boolean cdi) {
    return new ContainerdConfigurer(
        config, dropIn(), settings(cdi), Optional::empty, AtomicFile.BeforeRename.NONE);
  }

  RuntimeSettings settings(boolean cdi) {
    return new RuntimeSettings(
        RuntimeSettings.nvidiaRuntimes("nvidia", "/usr/local/nvidia/toolkit", true),
        "nvidia",
        true,
        cdi,
        List.of("/etc/cdi", "/var/run/cdi", "/run/cdi-out"),
        dropInHost());
  }

  private Path dropIn() {
    return dir.resolve("conf.d/99-nvidia.toml");
  }

  /** Same file here (no container): the host path is the local one. */
  private String dropInHost() {
    return dropIn().toString();
  }

  private Path write(String name, String content) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, content);
    return p;
  }
}

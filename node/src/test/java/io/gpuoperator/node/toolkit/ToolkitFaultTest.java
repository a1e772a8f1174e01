package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Faults leave the user's config byte for byte as it was and fail with the path and the reason:
 * invalid TOML, an unknown version, a read-only directory, a crash between temp write and rename.
 */
class ToolkitFaultTest {
  static final String GOOD = ContainerdComponentTest.V2_CONFIG;

  @TempDir Path dir;

  @Test
  void invalidTomlIsLeftUntouched() throws Exception {
    String bad = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"\n  sandbox_image = 1\n";
    Path config = write(bad);
    Result r = install(config);
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).contains(config.toString(), "is not valid TOML", "left untouched");
    assertThat(Files.readString(config)).isEqualTo(bad);
    assertThat(filesIn(dir)).containsExactly("config.toml");
  }

  @Test
  void aDriverRootThatIsNotThereFailsBeforeTheRuntimeIsTouched() throws Exception {
    Path config = write(GOOD);
    Path missing = dir.resolve("no-driver");
    Result r =
        install(
            config,
            "--cdi-enabled=true",
            "--cdi-output-dir",
            dir.resolve("cdi").toString(),
            "--driver-root",
            missing.toString(),
            "--driver-root-ctr-path",
            missing.toString(),
            "--backend",
            "nvml");
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err).isNotBlank();
    assertThat(Files.readString(config)).isEqualTo(GOOD);
    assertThat(filesIn(dir)).containsExactly("config.toml");
  }

  @Test
  void unknownVersionIsLeftUntouched() throws Exception {
    String v7 = "version = 7\n" + GOOD.substring(GOOD.indexOf("root"));
    Path config = write(v7);
    Result r = install(config);
    assertThat(r.code).isEqualTo(1);
    assertThat(r.err)
        .contains(config.toString(), "unknown containerd config version 7", "left untouched");
    assertThat(Files.readString(config)).isEqualTo(v7);
    assertThat(filesIn(dir)).containsExactly("config.toml");
  }

  @Test
  void readOnlyConfigDirectoryFailsAndRollsBackTheDropIn() throws Exception {
    Path config = write(GOOD);
    Files.createDirectories(dir.resolve("conf.d"));
    // As root, permissions do not stop writes; the immutable attribute does (like a read-only
    // mount).
    assumeTrue(run("chattr", "+i", dir.toString()) == 0, "chattr +i is not supported here");
    try {
      Result r = install(config);
      assertThat(r.code).isEqualTo(1);
      assertThat(r.err).contains("cannot write " + config, "Operation not permitted");
    } finally {
      run("chattr", "-i", dir.toString());
    }
    assertThat(Files.readString(config)).isEqualTo(GOOD);
    assertThat(filesIn(dir.resolve("conf.d"))).as("the drop-in was rolled back").isEmpty();
    assertThat(filesIn(dir)).containsExactlyInAnyOrder("config.toml", "conf.d");
  }

  @Test
  void crashBetweenTempWriteAndRenameKeepsTheOriginalAndTheNextInstallRecovers() throws Exception {
    Path config = write(GOOD);
    Path dropIn = dir.resolve("conf.d/99-nvidia.toml");

    int code = crashingInstall(config, dropIn, config);

    assertThat(code).isEqualTo(137);
    assertThat(Files.readString(config)).isEqualTo(GOOD);
    assertThat(filesIn(dir))
        .anyMatch(f -> f.startsWith(".config.toml.") && f.endsWith(".gpu-operator-tmp"));
    // The drop-in is complete (it was renamed before the crash), but nothing imports it yet.
    assertThat(dropIn).exists();

    Result r = install(config);
    assertThat(r.code).isEqualTo(0);
    assertThat(filesIn(dir)).noneMatch(f -> f.endsWith(".gpu-operator-tmp"));
    assertThat(Files.readString(config)).contains("imports = [\"" + dropIn + "\"]");
    assertThat(Files.readString(Backups.originalOf(config))).isEqualTo(GOOD);

    Result u = uninstall(config);
    assertThat(u.code).isEqualTo(0);
    assertThat(Files.readString(config)).isEqualTo(GOOD);
  }

  @Test
  void crashWhileWritingTheDropInLeavesNoDropIn() throws Exception {
    Path config = write(GOOD);
    Path dropIn = dir.resolve("conf.d/99-nvidia.toml");
    assertThat(crashingInstall(config, dropIn, dropIn)).isEqualTo(137);
    assertThat(Files.readString(config)).isEqualTo(GOOD);
    assertThat(dropIn).doesNotExist();
    assertThat(filesIn(dir.resolve("conf.d")))
        .allMatch(f -> f.endsWith(".gpu-operator-tmp") || f.endsWith(Backups.ABSENT_SUFFIX));
  }

  @Test
  void aBackupRemovedByHandStillLetsUninstallDropTheImportOfTheDropIn() throws Exception {
    Path config = write(GOOD);
    assertThat(install(config).code).isZero();
    Files.delete(Backups.originalOf(config));
    assertThat(uninstall(config).code).isZero();
    // An import of a file that no longer exists would keep containerd from starting.
    assertThat(Files.readString(config)).isEqualTo(GOOD);
    assertThat(dir.resolve("conf.d/99-nvidia.toml")).doesNotExist();
  }

  private int crashingInstall(Path config, Path dropIn, Path crashAt) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                CrashingInstall.class.getName(),
                config.toString(),
                dropIn.toString(),
                crashAt.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  record Result(int code, String err) {}

  private Result install(Path config, String... more) {
    return toolkit("install", config, more);
  }

  private Result uninstall(Path config) {
    return toolkit("uninstall", config);
  }

  private Result toolkit(String step, Path config, String... more) {
    CommandLine cl = new CommandLine(new ToolkitCommand().withEnv(Map.of()));
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err, true));
    List<String> args =
        new ArrayList<>(
            List.of(
                step,
                "--config",
                config.toString(),
                "--drop-in-config",
                dir.resolve("conf.d/99-nvidia.toml").toString(),
                "--config-source",
                "file",
                "--restart-mode",
                "none"));
    if (!List.of(more).contains("--cdi-output-dir")) {
      // uninstall removes the CDI spec: never the host's (a real node's kubelet may use it).
      args.addAll(List.of("--cdi-output-dir", dir.resolve("cdi").toString()));
    }
    args.addAll(List.of(more));
    int code = cl.execute(args.toArray(String[]::new));
    return new Result(code, err.toString());
  }

  private Path write(String content) throws Exception {
    Path p = dir.resolve("config.toml");
    Files.writeString(p, content);
    return p;
  }

  static List<String> filesIn(Path d) throws Exception {
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return new ArrayList<>(s.map(p -> p.getFileName().toString()).sorted().toList());
    }
  }

  private static int run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor();
  }
}

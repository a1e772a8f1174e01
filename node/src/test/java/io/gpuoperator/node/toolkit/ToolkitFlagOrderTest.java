package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.config.cli.CommandLines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The toolkit's flags count before and after {@code install}/{@code uninstall} (issue 33 finding 1:
 * {@code toolkit --config X --restart-mode none install} once ignored every flag and wrote the
 * host's /etc/containerd/config.toml). Every case checks that the host's runtime configs are as
 * they were.
 */
class ToolkitFlagOrderTest {
  private static final List<Path> HOST_CONFIGS =
      List.of(
          Path.of("/etc/containerd"),
          Path.of("/etc/crio"),
          Path.of("/run/nvidia/toolkit"),
          Path.of("/var/run/cdi"));

  @TempDir Path dir;
  private Path config;
  private Path dropIn;
  private Map<String, String> hostBefore;

  @BeforeEach
  void setUp() throws Exception {
    config = dir.resolve("config.toml");
    dropIn = dir.resolve("conf.d/99-nvidia.toml");
    Files.writeString(config, ToolkitFaultTest.GOOD);
    hostBefore = hostSnapshot();
  }

  @AfterEach
  void hostIsUntouched() throws Exception {
    assertThat(hostSnapshot()).isEqualTo(hostBefore);
  }

  @Test
  void flagsBeforeTheSubcommandAreApplied() throws Exception {
    Result r = run(concat(flags(), List.of("install")));
    assertThat(r.code).as(r.err).isZero();
    assertThat(Files.readString(dropIn)).contains("nvidia");
    assertThat(Files.readString(config)).contains(dropIn.toString());
  }

  @Test
  void beforeAndAfterWriteTheSameFiles() throws Exception {
    Result before = run(concat(flags(), List.of("install")));
    String configBefore = Files.readString(config);
    String dropInBefore = Files.readString(dropIn);
    assertThat(run(concat(flags(), List.of("uninstall"))).code).isZero();
    assertThat(Files.readString(config)).isEqualTo(ToolkitFaultTest.GOOD);
    assertThat(dropIn).doesNotExist();

    Result after = run(concat(List.of("install"), flags()));
    assertThat(before.code).as(before.err).isZero();
    assertThat(after.code).as(after.err).isZero();
    assertThat(Files.readString(config)).isEqualTo(configBefore);
    assertThat(Files.readString(dropIn)).isEqualTo(dropInBefore);
  }

  @Test
  void flagsSplitAroundTheSubcommandAreAllApplied() throws Exception {
    List<String> f = flags();
    List<String> args = new ArrayList<>(f.subList(0, 4));
    args.add("install");
    args.addAll(f.subList(4, f.size()));
    Result r = run(args);
    assertThat(r.code).as(r.err).isZero();
    assertThat(Files.readString(dropIn)).contains("nvidia");
  }

  @Test
  void uninstallTakesFlagsBeforeItsName() throws Exception {
    assertThat(run(concat(List.of("install"), flags())).code).isZero();
    Result r = run(concat(flags(), List.of("uninstall")));
    assertThat(r.code).as(r.err).isZero();
    assertThat(Files.readString(config)).isEqualTo(ToolkitFaultTest.GOOD);
    assertThat(dropIn).doesNotExist();
  }

  @Test
  void aFlagGivenOnBothSidesIsRefused() throws Exception {
    Path other = dir.resolve("other.toml");
    List<String> args = concat(flags(), List.of("install", "--config", other.toString()));
    Result r = run(args);
    assertThat(r.code).isEqualTo(2);
    assertThat(r.err).contains("--config was given both before and after 'install'");
    assertThat(Files.readString(config)).isEqualTo(ToolkitFaultTest.GOOD);
    assertThat(other).doesNotExist();
    assertThat(dropIn).doesNotExist();
  }

  @Test
  void noDaemonBeforeASubcommandIsRefused() throws Exception {
    Result r = run(concat(List.of("--no-daemon"), concat(flags(), List.of("install"))));
    assertThat(r.code).isEqualTo(2);
    assertThat(r.err).contains("--no-daemon is for toolkit without a subcommand");
    assertThat(dropIn).doesNotExist();
  }

  private List<String> flags() {
    return List.of(
        "--config",
        config.toString(),
        "--drop-in-config",
        dropIn.toString(),
        "--config-source",
        "file",
        "--restart-mode",
        "none",
        "--pid-file",
        dir.resolve("toolkit.pid").toString(),
        // uninstall removes the CDI spec: never the host's (a real node's kubelet may use it).
        "--cdi-output-dir",
        dir.resolve("cdi").toString());
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  record Result(int code, String err) {}

  private static Result run(List<String> args) {
    CommandLine cl =
        CommandLines.configure(new CommandLine(new ToolkitCommand().withEnv(Map.of())));
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args.toArray(String[]::new));
    return new Result(code, err.toString());
  }

  /** Every file under the host's runtime config folders with its modification time. */
  private static Map<String, String> hostSnapshot() throws Exception {
    Map<String, String> m = new TreeMap<>();
    for (Path root : HOST_CONFIGS) {
      if (!Files.exists(root)) {
        m.put(root.toString(), "absent");
        continue;
      }
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.toList()) {
          FileTime t = Files.getLastModifiedTime(p);
          m.put(p.toString(), t + " " + (Files.isRegularFile(p) ? Files.size(p) : -1));
        }
      }
    }
    return m;
  }
}

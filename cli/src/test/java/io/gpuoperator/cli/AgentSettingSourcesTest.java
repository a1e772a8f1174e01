package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Issue 11.6: the same bad value given to each node agent as a flag, as an environment variable and
 * (where the agent has a config file) in the file yields one line, {@code <agent>: <source>:
 * <problem>}, exit 2, where only the source differs: {@code --mig-strategy}, {@code MIG_STRATEGY}
 * or {@code config.yaml:3:3 flags.migStrategy}. Runs the real command tree, each agent with a given
 * environment instead of the process's.
 */
class AgentSettingSourcesTest {
  private static final Pattern LINE = Pattern.compile("^gpu-operator ([a-z-]+): (.+?): (.+)$");

  @TempDir Path dir;

  /**
   * @param agent the subcommand
   * @param args what the agent needs to get as far as its settings (none of them bad)
   * @param flag the setting's flag
   * @param env the setting's variable
   * @param fileFlag the flag naming the agent's config file, or null when it has none
   * @param field the setting's field in that file ({@code flags.migStrategy})
   * @param bad the bad value
   */
  record Case(
      String agent,
      List<String> args,
      String flag,
      String env,
      String fileFlag,
      String field,
      String bad) {
    @Override
    public String toString() {
      return agent + " " + flag;
    }
  }

  static Stream<Arguments> agents() {
    return Stream.of(
            new Case(
                "device-plugin",
                List.of(),
                "--mig-strategy",
                "MIG_STRATEGY",
                "--config-file",
                "flags.migStrategy",
                "sometimes"),
            new Case(
                "feature-discovery",
                List.of("--oneshot", "--output", "file"),
                "--mig-strategy",
                "GFD_MIG_STRATEGY",
                "--config-file",
                "flags.migStrategy",
                "sometimes"),
            new Case(
                "exporter",
                List.of(),
                "--collect-interval",
                "DCGM_EXPORTER_INTERVAL",
                null,
                null,
                "500"),
            new Case(
                "mig-manager",
                List.of("--node-name", "n"),
                "--pods-timeout",
                "MIG_PODS_GONE_TIMEOUT",
                null,
                null,
                "soon"),
            new Case("validator", List.of(), "--component", "COMPONENT", null, null, "gpu"),
            new Case(
                "dra-plugin",
                List.of("--node-name", "n"),
                "--rescan-interval",
                "RESCAN_INTERVAL",
                null,
                null,
                "soon"),
            new Case("toolkit", List.of(), "--cdi-enabled", "CDI_ENABLED", null, null, "maybe"))
        .map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("agents")
  void theSameBadValueNamesItsSourceInOneStyle(Case c) throws Exception {
    List<String> flagArgs = new ArrayList<>(c.args());
    flagArgs.add(c.flag() + "=" + c.bad());
    Matcher byFlag = failure(c.agent(), Map.of(), flagArgs);
    assertThat(byFlag.group(2)).isEqualTo(c.flag());
    String problem = byFlag.group(3);
    assertThat(problem).contains(c.bad());

    Matcher byEnv = failure(c.agent(), Map.of(c.env(), c.bad()), c.args());
    assertThat(byEnv.group(2)).isEqualTo(c.env());
    assertThat(byEnv.group(3)).isEqualTo(problem);

    if (c.fileFlag() != null) {
      Path file = dir.resolve("config.yaml");
      String[] path = c.field().split("\\.");
      Files.writeString(
          file, "version: v1\n" + path[0] + ":\n  " + path[1] + ": " + c.bad() + "\n");
      List<String> fileArgs = new ArrayList<>(c.args());
      fileArgs.addAll(List.of(c.fileFlag(), file.toString()));
      Matcher byFile = failure(c.agent(), Map.of(), fileArgs);
      // file:line:column of the field's key, then its path.
      assertThat(byFile.group(2)).isEqualTo(file + ":3:3 " + c.field());
      assertThat(byFile.group(3)).isEqualTo(problem);
    }
  }

  /** Runs the agent, which must exit 2 with one line naming the source; the line's parts. */
  private static Matcher failure(String agent, Map<String, String> env, List<String> args) {
    CommandLine cl = GpuOperatorCommand.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>();
    all.add(agent);
    all.addAll(args);
    int rc = cl.execute(all.toArray(new String[0]));
    String text = err.toString().strip();
    assertThat(rc).as("%s %s: %s", agent, args, text).isEqualTo(2);
    assertThat(text.lines()).as("one line: %s", text).hasSize(1);
    Matcher m = LINE.matcher(text);
    assertThat(m.matches()).as(text).isTrue();
    assertThat(m.group(1)).isEqualTo(agent);
    return m;
  }
}

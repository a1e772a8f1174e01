package io.gpuoperator.config.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

class CommandLinesTest {
  static final Setting<String> MIG =
      Setting.of("--mig-strategy", Parse.oneOf("MIG strategy", List.of("none", "single", "mixed")))
          .env("MIG_STRATEGY")
          .field("flags.migStrategy")
          .label("STRATEGY")
          .help("How MIG devices are advertised.")
          .orElse("none", "none");
  static final Setting<Boolean> ONESHOT =
      Setting.bool("--oneshot").help("Label once and exit.").orElse(false);
  static final Setting<String> OUT =
      Setting.string("--output-file").alias("-o").label("FILE").help("Out.");

  static final class Options extends SettingOptions {
    public Options() {
      super(group("Agent:", List.of(MIG, ONESHOT, OUT)));
    }
  }

  @Command(name = "agent", description = "Runs the agent.", modelTransformer = Options.class)
  static class Agent implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    Map<String, String> env = Map.of();
    Settings seen;
    RuntimeException fail;

    @Override
    public Integer call() {
      seen = SettingOptions.settings(spec, env, null);
      seen.get(MIG);
      if (fail != null) {
        throw fail;
      }
      return 0;
    }
  }

  @Command(name = "paths")
  static class Paths implements Runnable {
    @CommandLine.Option(names = "--kubeconfig")
    java.nio.file.Path kubeconfig;

    @Override
    public void run() {}
  }

  @Command(
      name = "top",
      versionProvider = Version.class,
      subcommands = {Agent.class, Paths.class})
  static class Top implements Runnable {
    @Override
    public void run() {}
  }

  static class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"top 1.0"};
    }
  }

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private CommandLine cli() {
    CommandLine cl = CommandLines.configure(new CommandLine(new Top()));
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl;
  }

  @Test
  void settingsBecomeOptionsWhoseHelpNamesEnvFieldAndDefault() {
    CommandLine cl = cli();
    assertThat(cl.execute("agent", "--help")).isZero();
    assertThat(out.toString())
        .contains("Agent:")
        .contains("--mig-strategy=STRATEGY")
        .contains("Env: MIG_STRATEGY; File: flags.migStrategy")
        .contains("Default: none")
        .contains("-o, --output-file=FILE")
        .contains("-v, --verbose")
        .contains("-V, --version");
    out.getBuffer().setLength(0);
    assertThat(cl.execute("agent", "-V")).isZero();
    assertThat(out.toString()).contains("top 1.0");
  }

  @Test
  void aDefaultGivenAsAValueAloneIsShownAsTheSettingsTextForIt() {
    assertThat(ONESHOT.defaultText()).isEqualTo("false");
    // The text is the formatter's, even one set after the default.
    Setting<Integer> n = Setting.of("--n", Parse.integer(0, 9)).orElse(3).format(v -> v + " GPUs");
    assertThat(n.defaultText()).isEqualTo("3 GPUs");
    assertThat(n.defaultValue()).isEqualTo(3);
  }

  @Test
  void flagsAreReadAsTyped() {
    CommandLine cl = cli();
    Agent agent = cl.getSubcommands().get("agent").getCommand();
    assertThat(cl.execute("agent", "--mig-strategy", "mixed", "--oneshot", "-o", "f")).isZero();
    assertThat(agent.seen.get(MIG)).isEqualTo("mixed");
    assertThat(agent.seen.get(ONESHOT)).isTrue();
    assertThat(agent.seen.get(OUT)).isEqualTo("f");
    assertThat(cl.execute("agent", "--oneshot=false")).isZero();
    assertThat(agent.seen.get(ONESHOT)).isFalse();
    assertThat(agent.seen.get(MIG)).isEqualTo("none");
  }

  @Test
  void badInputIsOneLineAndExitTwo() {
    CommandLine cl = cli();
    assertThat(cl.execute("agent", "--mig-strategy", "x")).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(err.toString())
        .isEqualTo(
            "top agent: --mig-strategy: unknown MIG strategy \"x\"; expected none, single or"
                + " mixed\n");
    err.getBuffer().setLength(0);
    assertThat(cl.execute("agent", "--nope")).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(err.toString())
        .startsWith("top agent: Unknown option: \"--nope\"")
        .doesNotContain("Usage");
  }

  @Test
  void environmentFailuresExitOneAndOtherFailuresHideTheirTraceUnlessVerbose() {
    CommandLine cl = cli();
    Agent agent = cl.getSubcommands().get("agent").getCommand();
    agent.fail = new EnvironmentException("cannot reach the GPUs: driver not loaded");
    assertThat(cl.execute("agent")).isEqualTo(ExitCodes.FAILED);
    assertThat(err.toString()).isEqualTo("top agent: cannot reach the GPUs: driver not loaded\n");
    err.getBuffer().setLength(0);
    agent.fail = new IllegalStateException("boom");
    assertThat(cl.execute("agent")).isEqualTo(ExitCodes.FAILED);
    // The exception's name and message, which a bug report needs; no stack trace without -v.
    assertThat(err.toString())
        .startsWith("top agent: internal error: IllegalStateException: boom")
        .doesNotContain("\tat ");
    err.getBuffer().setLength(0);
    assertThat(cl.execute("agent", "-v")).isEqualTo(ExitCodes.FAILED);
    assertThat(err.toString()).contains("\tat ");
    err.getBuffer().setLength(0);
    agent.fail = new ConfigException("FOO: bad");
    assertThat(cl.execute("agent")).isEqualTo(ExitCodes.BAD_INPUT);
  }

  @Test
  void aPathPicocliCannotConvertIsNamedWithoutJavaTypes() {
    // Found by InputFuzzTest: a NUL in --kubeconfig printed "interface java.nio.file.Path".
    assertThat(cli().execute("paths", "--kubeconfig", "a\u0000b")).isEqualTo(2);
    assertThat(err.toString())
        .startsWith("top paths: Invalid value for option \"--kubeconfig\": not a usable path:")
        .doesNotContain("java.");
  }
}

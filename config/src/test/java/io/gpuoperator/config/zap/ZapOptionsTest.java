package io.gpuoperator.config.zap;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.config.cli.CommandLines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ZapOptionsTest {
  @Command(name = "agent")
  static class Agent implements Callable<Integer> {
    @Mixin ZapOptions zap;

    @Override
    public Integer call() {
      return 0;
    }
  }

  /** As NVIDIA's operator: stack traces only at panic unless the flag says otherwise. */
  static class PanicPreset extends ZapOptions {
    @Override
    protected Integer stacktracePreset() {
      return ZapSettings.PANIC;
    }
  }

  @Command(name = "operator")
  static class Operator implements Callable<Integer> {
    @Mixin PanicPreset zap;

    @Override
    public Integer call() {
      return 0;
    }
  }

  private static ZapSettings agent(String... args) {
    Agent a = new Agent();
    new CommandLine(a).parseArgs(args);
    return a.zap.settings();
  }

  @Test
  void withoutFlagsControllerRuntimesProductionDefaults() {
    assertThat(agent())
        .isEqualTo(
            new ZapSettings(
                false,
                ZapSettings.Encoder.JSON,
                ZapSettings.INFO,
                ZapSettings.ERROR,
                TimeEncoding.RFC3339));
    assertThat(agent()).isEqualTo(ZapSettings.PRODUCTION);
  }

  @Test
  void develDefaultsToConsoleDebugAndStackTracesFromWarnAndFlagsStillWin() {
    assertThat(agent("--zap-devel"))
        .isEqualTo(
            new ZapSettings(
                true,
                ZapSettings.Encoder.CONSOLE,
                ZapSettings.DEBUG,
                ZapSettings.WARN,
                TimeEncoding.RFC3339));
    assertThat(agent("--zap-devel=false").development()).isFalse();
    ZapSettings s =
        agent(
            "--zap-devel",
            "--zap-encoder=JSON",
            "--zap-log-level",
            "error",
            "--zap-stacktrace-level=panic",
            "--zap-time-encoding=epoch");
    assertThat(s)
        .isEqualTo(
            new ZapSettings(
                true,
                ZapSettings.Encoder.JSON,
                ZapSettings.ERROR,
                ZapSettings.PANIC,
                TimeEncoding.EPOCH));
  }

  @Test
  void levelsByNameAndIntegerVerbosity() {
    assertThat(agent("--zap-log-level=DEBUG").level()).isEqualTo(-1);
    assertThat(agent("--zap-log-level=info").level()).isEqualTo(0);
    assertThat(agent("--zap-log-level=panic").level()).isEqualTo(4);
    assertThat(agent("--zap-log-level=1").level()).isEqualTo(-1);
    assertThat(agent("--zap-log-level=5").level()).isEqualTo(-5);
    assertThat(agent("--zap-log-level=1000").level()).isEqualTo(-128);
    assertThat(agent("--zap-stacktrace-level=Info").stacktraceLevel()).isEqualTo(0);
    assertThat(agent("--zap-time-encoding=nano").timeEncoding()).isEqualTo(TimeEncoding.NANOS);
    assertThat(agent("--zap-time-encoding=RFC3339Nano").timeEncoding())
        .isEqualTo(TimeEncoding.RFC3339NANO);
  }

  @Test
  void aCommandsPresetReplacesTheModesStackTraceDefaultButNotTheFlag() {
    Operator o = new Operator();
    new CommandLine(o).parseArgs("--zap-devel");
    assertThat(o.zap.settings().stacktraceLevel()).isEqualTo(ZapSettings.PANIC);
    new CommandLine(o = new Operator()).parseArgs("--zap-stacktrace-level=error");
    assertThat(o.zap.settings().stacktraceLevel()).isEqualTo(ZapSettings.ERROR);
  }

  /** The one line and exit code every command gives for a bad flag. */
  private static String refused(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = CommandLines.configure(new CommandLine(new Agent()));
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute(args)).as("exit code of %s", String.join(" ", args)).isEqualTo(2);
    return err.toString().lines().findFirst().orElseThrow();
  }

  @Test
  void badValuesExit2NamingTheFlagTheValueAndTheAcceptedOnes() {
    assertThat(refused("--zap-log-level=warn"))
        .isEqualTo(
            "agent: Invalid value for option \"--zap-log-level\": invalid log level \"warn\""
                + " (debug, info, error, panic or an integer > 0)");
    assertThat(refused("--zap-log-level=0")).contains("invalid log level \"0\"");
    assertThat(refused("--zap-log-level=-3")).contains("invalid log level \"-3\"");
    assertThat(refused("--zap-encoder=text"))
        .isEqualTo(
            "agent: Invalid value for option \"--zap-encoder\": invalid encoder value \"text\""
                + " (json or console)");
    assertThat(refused("--zap-stacktrace-level=debug"))
        .isEqualTo(
            "agent: Invalid value for option \"--zap-stacktrace-level\": invalid stacktrace level"
                + " \"debug\" (info, error or panic)");
    assertThat(refused("--zap-time-encoding=unix"))
        .isEqualTo(
            "agent: Invalid value for option \"--zap-time-encoding\": invalid time-encoding value"
                + " \"unix\" (epoch, millis, nanos, iso8601, rfc3339 or rfc3339nano)");
    assertThat(refused("--zap-devel=maybe"))
        .isEqualTo("agent: Invalid value for option \"--zap-devel\": \"maybe\" is not a boolean");
  }

  @Test
  void namesListEveryFlagOfTheMixin() {
    var spec = new CommandLine(new Agent()).getCommandSpec();
    assertThat(spec.options())
        .extracting(o -> o.longestName())
        .filteredOn(n -> n.startsWith("--zap-"))
        .containsExactlyInAnyOrderElementsOf(ZapOptions.NAMES);
  }
}

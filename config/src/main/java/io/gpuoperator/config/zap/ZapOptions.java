package io.gpuoperator.config.zap;

import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * controller-runtime's zap flags as a picocli mixin, so the operator and every node agent take the
 * same {@code --zap-*} flags with the same values and errors as NVIDIA's operator (whose chart and
 * users pass them). A bad value fails the parse: one line naming the flag, the value and the
 * accepted ones, exit 2. The flags only describe the logging; the process's entry point applies
 * them, so an agent hosted in another process (node-agents, the simulator) leaves that process's
 * logging alone.
 *
 * <p>A command whose original presets a stack trace level (NVIDIA's operator presets panic)
 * declares a subclass overriding {@link #stacktracePreset()}.
 */
public class ZapOptions {
  /** The flags' names, for commands that refuse them where they would have no effect. */
  public static final Set<String> NAMES =
      Set.of(
          "--zap-devel",
          "--zap-encoder",
          "--zap-log-level",
          "--zap-stacktrace-level",
          "--zap-time-encoding");

  @Option(
      names = "--zap-devel",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Development logging: console text, level debug, stack traces from warn. Without it:"
              + " JSON lines, level info, stack traces from error.")
  boolean development;

  @Option(
      names = "--zap-encoder",
      paramLabel = "ENCODER",
      converter = EncoderConverter.class,
      description = "json (one object per line) or console (text); default by --zap-devel.")
  ZapSettings.Encoder encoder;

  @Option(
      names = "--zap-log-level",
      paramLabel = "LEVEL",
      converter = LevelConverter.class,
      description =
          "debug, info, error or panic (nothing but failures), or an integer n > 0: verbosity"
              + " n (1 is debug, 2 and more add trace lines); default info (debug with"
              + " --zap-devel).")
  Integer level;

  @Option(
      names = "--zap-stacktrace-level",
      paramLabel = "LEVEL",
      converter = StacktraceLevelConverter.class,
      description =
          "info, error or panic: lines at or above it carry a stack trace; default error (warn"
              + " with --zap-devel).")
  Integer stacktraceLevel;

  @Option(
      names = "--zap-time-encoding",
      paramLabel = "ENCODING",
      converter = TimeEncodingConverter.class,
      description =
          "epoch (seconds, a float), millis, nanos, iso8601, rfc3339 or rfc3339nano; default"
              + " rfc3339.")
  TimeEncoding timeEncoding;

  /**
   * The command's own default stack trace level in zap's numbers, replacing the mode's default;
   * null (the default) for controller-runtime's.
   */
  protected Integer stacktracePreset() {
    return null;
  }

  /** The settings the flags give, controller-runtime's defaults for the rest. */
  public ZapSettings settings() {
    return ZapSettings.resolve(
        development, encoder, level, stacktraceLevel, timeEncoding, stacktracePreset());
  }

  static final class EncoderConverter implements CommandLine.ITypeConverter<ZapSettings.Encoder> {
    @Override
    public ZapSettings.Encoder convert(String value) {
      return converted(() -> ZapSettings.Encoder.parse(value));
    }
  }

  static final class LevelConverter implements CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return converted(() -> ZapSettings.parseLevel(value));
    }
  }

  static final class StacktraceLevelConverter implements CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return converted(() -> ZapSettings.parseStacktraceLevel(value));
    }
  }

  static final class TimeEncodingConverter implements CommandLine.ITypeConverter<TimeEncoding> {
    @Override
    public TimeEncoding convert(String value) {
      return converted(() -> TimeEncoding.parse(value));
    }
  }

  /** picocli reports a conversion failure's message after the flag's name. */
  private static <T> T converted(java.util.function.Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}

package io.gpuoperator.config.zap;

import java.util.Locale;

/**
 * A process's logging as controller-runtime's zap options describe it, defaults resolved: the
 * encoder, the least severe level written, the level from which a line carries a stack trace and
 * how times are written. Levels are zap's numbers: -1 debug, 0 info, 1 warn, 2 error, 4 panic, and
 * -n for a verbosity n &gt; 1 (more verbose than debug).
 *
 * @param development {@code --zap-devel}: console, debug and stack traces from warn unless set
 * @param encoder JSON lines or zap's console text
 * @param level lines below this zap level are dropped
 * @param stacktraceLevel lines at or above this zap level carry a stack trace
 * @param timeEncoding how the time is written
 */
public record ZapSettings(
    boolean development,
    Encoder encoder,
    int level,
    int stacktraceLevel,
    TimeEncoding timeEncoding) {

  /** zap's debug level. */
  public static final int DEBUG = -1;

  /** zap's info level. */
  public static final int INFO = 0;

  /** zap's warn level. */
  public static final int WARN = 1;

  /** zap's error level. */
  public static final int ERROR = 2;

  /** zap's panic level: above every level a line is logged at here. */
  public static final int PANIC = 4;

  /** controller-runtime's production defaults: JSON, info, stack traces from error, RFC 3339. */
  public static final ZapSettings PRODUCTION = resolve(false, null, null, null, null, null);

  /** The two encoders controller-runtime offers. */
  public enum Encoder {
    /** One JSON object per line. */
    JSON,
    /** zap's console text: tab-separated time, level, logger, message and a JSON context. */
    CONSOLE;

    /**
     * json or console, any case.
     *
     * @throws IllegalArgumentException with controller-runtime's words and the accepted values
     */
    public static Encoder parse(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "json" -> JSON;
        case "console" -> CONSOLE;
        default ->
            throw new IllegalArgumentException(
                "invalid encoder value \"" + value + "\" (json or console)");
      };
    }
  }

  /**
   * The settings for what the flags gave (null: not given), with controller-runtime's defaults for
   * the rest: development mode means console, debug and stack traces from warn; production means
   * JSON, info and stack traces from error; the time is RFC 3339 either way.
   *
   * @param stacktracePreset a command's own default stack trace level (NVIDIA's operator presets
   *     panic), which replaces the mode's default; null for the mode's
   */
  public static ZapSettings resolve(
      boolean development,
      Encoder encoder,
      Integer level,
      Integer stacktraceLevel,
      TimeEncoding timeEncoding,
      Integer stacktracePreset) {
    int stackDefault = stacktracePreset != null ? stacktracePreset : development ? WARN : ERROR;
    return new ZapSettings(
        development,
        encoder != null ? encoder : development ? Encoder.CONSOLE : Encoder.JSON,
        level != null ? level : development ? DEBUG : INFO,
        stacktraceLevel != null ? stacktraceLevel : stackDefault,
        timeEncoding != null ? timeEncoding : TimeEncoding.RFC3339);
  }

  /**
   * A {@code --zap-log-level} value: debug, info, error or panic (any case), or an integer n &gt; 0
   * for zap level -n (1 is debug, 2 and more are more verbose).
   *
   * @throws IllegalArgumentException with controller-runtime's words and the accepted values
   */
  public static int parseLevel(String value) {
    switch (value.toLowerCase(Locale.ROOT)) {
      case "debug":
        return DEBUG;
      case "info":
        return INFO;
      case "error":
        return ERROR;
      case "panic":
        return PANIC;
      default:
        break;
    }
    try {
      int n = Integer.parseInt(value);
      // zap levels are int8: controller-runtime's -n wraps past 128; a verbosity that high is as
      // verbose as any.
      if (n > 0) {
        return Math.max(-n, -128);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "invalid log level \"" + value + "\" (debug, info, error, panic or an integer > 0)");
  }

  /**
   * A {@code --zap-stacktrace-level} value: info, error or panic, any case.
   *
   * @throws IllegalArgumentException with controller-runtime's words and the accepted values
   */
  public static int parseStacktraceLevel(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "info" -> INFO;
      case "error" -> ERROR;
      case "panic" -> PANIC;
      default ->
          throw new IllegalArgumentException(
              "invalid stacktrace level \"" + value + "\" (info, error or panic)");
    };
  }

  /** Whether a line at this zap level is written. */
  public boolean enabled(int lineLevel) {
    return lineLevel >= level;
  }

  /** Whether a line at this zap level carries a stack trace. */
  public boolean stacktrace(int lineLevel) {
    return lineLevel >= stacktraceLevel;
  }
}

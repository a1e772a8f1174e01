package io.gpuoperator.config.zap;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;

/**
 * One log line as controller-runtime's zap logger writes it, for either encoder. JSON: {@code
 * {"level":"info","ts":…,"logger":…,"msg":…,<fields>,"error":…,"stacktrace":…}} in zap's key order
 * (the production encoder config's keys; no caller, as controller-runtime adds none). Console: the
 * time, the upper-case level, the logger and the message separated by tabs, then the fields and the
 * error as one JSON object ({@code {"key": "value"}}, zap's spaced form), then the stack trace on
 * the following lines.
 *
 * @param time when the line was logged
 * @param level zap's level number ({@link ZapSettings#INFO} ...)
 * @param logger the logger's name
 * @param message the message
 * @param fields structured context in order (a reconciled resource's kind, namespace and name)
 * @param error the error's message, or null: zapr's {@code "error"} key
 * @param stacktrace the stack trace, or null
 */
public record ZapLine(
    Instant time,
    int level,
    String logger,
    String message,
    Map<String, String> fields,
    String error,
    String stacktrace) {

  /** The line, newline included, as {@code settings} encode it. */
  public String encode(ZapSettings settings, ZoneId zone) {
    return settings.encoder() == ZapSettings.Encoder.JSON
        ? json(settings.timeEncoding(), zone)
        : console(settings.timeEncoding(), zone);
  }

  private String json(TimeEncoding encoding, ZoneId zone) {
    StringBuilder out = new StringBuilder(160);
    out.append("{\"level\":");
    quote(out, levelName(level, false));
    out.append(",\"ts\":");
    time(out, encoding, zone);
    if (logger != null && !logger.isEmpty()) {
      out.append(",\"logger\":");
      quote(out, logger);
    }
    out.append(",\"msg\":");
    quote(out, message);
    for (Map.Entry<String, String> f : fields.entrySet()) {
      out.append(',');
      quote(out, f.getKey());
      out.append(':');
      quote(out, f.getValue());
    }
    if (error != null) {
      out.append(",\"error\":");
      quote(out, error);
    }
    if (stacktrace != null) {
      out.append(",\"stacktrace\":");
      quote(out, stacktrace);
    }
    return out.append("}\n").toString();
  }

  private String console(TimeEncoding encoding, ZoneId zone) {
    StringBuilder out = new StringBuilder(160);
    out.append(encoding.encode(time, zone));
    out.append('\t').append(levelName(level, true));
    if (logger != null && !logger.isEmpty()) {
      out.append('\t').append(logger);
    }
    out.append('\t').append(message);
    if (!fields.isEmpty() || error != null) {
      out.append("\t{");
      String sep = "";
      for (Map.Entry<String, String> f : fields.entrySet()) {
        out.append(sep);
        quote(out, f.getKey());
        out.append(": ");
        quote(out, f.getValue());
        sep = ", ";
      }
      if (error != null) {
        out.append(sep).append("\"error\": ");
        quote(out, error);
      }
      out.append('}');
    }
    if (stacktrace != null) {
      out.append('\n').append(stacktrace.stripTrailing());
    }
    return out.append('\n').toString();
  }

  private void time(StringBuilder out, TimeEncoding encoding, ZoneId zone) {
    String t = encoding.encode(time, zone);
    if (encoding.numeric()) {
      out.append(t);
    } else {
      quote(out, t);
    }
  }

  /**
   * zap's level names: lower case in JSON, upper case on the console; a level past the named ones
   * (a verbosity) is {@code Level(-2)} / {@code LEVEL(-2)}.
   */
  static String levelName(int level, boolean upper) {
    String name =
        switch (level) {
          case -1 -> "debug";
          case 0 -> "info";
          case 1 -> "warn";
          case 2 -> "error";
          case 3 -> "dpanic";
          case 4 -> "panic";
          case 5 -> "fatal";
          default -> upper ? "LEVEL(" + level + ")" : "Level(" + level + ")";
        };
    return upper ? name.toUpperCase(java.util.Locale.ROOT) : name;
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(s == null ? "" : s, out);
    out.append('"');
  }
}

package io.gpuoperator.operator.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * The operator's log level and format, applied to Logback at start. Text is the pattern of the
 * bundled logback.xml (with the reconciled resource as {@code %resource}); JSON is Logback's own
 * {@link JsonEncoder}: one object per line with level, logger, message, throwable and the MDC,
 * whose {@code resource.kind}, {@code resource.namespace} and {@code resource.name} JOSDK sets on
 * every line logged during a reconcile.
 *
 * <p>Values are parsed leniently in the vocabularies users know: {@code text} or
 * controller-runtime's {@code console}, and zap's level names, so the original's {@code
 * --zap-encoder} and {@code --zap-log-level} can map onto the same settings.
 *
 * @param level the root logger's level; libraries keep the levels logback.xml gives them unless
 *     this is more verbose than info
 */
public record LogSettings(Level level, Format format) {
  /** Output formats. */
  public enum Format {
    TEXT,
    JSON;

    /** text (or console) or json. */
    public static Format parse(String value) {
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "text", "console" -> TEXT;
        case "json" -> JSON;
        default ->
            throw new IllegalArgumentException(
                "unknown log format '" + value + "', expected text or json");
      };
    }
  }

  /** The defaults: info, text. */
  public static final LogSettings DEFAULT = new LogSettings(Level.INFO, Format.TEXT);

  /** trace, debug, info, warn (warning) or error; any case. */
  public static Level parseLevel(String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warn", "warning" -> Level.WARN;
      case "error" -> Level.ERROR;
      default ->
          throw new IllegalArgumentException(
              "unknown log level '" + value + "', expected trace, debug, info, warn or error");
    };
  }

  /** Reconfigures the running Logback: root level and, for JSON, every root appender's encoder. */
  public void apply() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      apply(context);
    } // else another SLF4J binding: nothing to configure
  }

  /** Reconfigures the given Logback context. */
  void apply(LoggerContext context) {
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(level);
    if (!level.isGreaterOrEqual(Level.INFO)) {
      // More verbose than info: JOSDK follows (its INFO default would hide its debug lines).
      context.getLoggerList().stream()
          .filter(l -> l != root && l.getLevel() != null && l.getLevel().isGreaterOrEqual(level))
          .filter(l -> l.getName().startsWith("io.javaoperatorsdk"))
          .forEach(l -> l.setLevel(level));
    }
    if (format == Format.JSON) {
      // The appenders keep running (stopping one closes its stream): only the encoder changes.
      for (OutputStreamAppender<ILoggingEvent> appender : streamAppenders(root)) {
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        appender.setEncoder(encoder);
      }
    }
  }

  private static List<OutputStreamAppender<ILoggingEvent>> streamAppenders(Logger root) {
    List<OutputStreamAppender<ILoggingEvent>> out = new ArrayList<>();
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next() instanceof OutputStreamAppender<ILoggingEvent> a) {
        out.add(a);
      }
    }
    return out;
  }
}

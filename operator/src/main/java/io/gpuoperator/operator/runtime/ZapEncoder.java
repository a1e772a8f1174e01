package io.gpuoperator.operator.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import io.gpuoperator.config.zap.ZapLine;
import io.gpuoperator.config.zap.ZapSettings;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.event.KeyValuePair;

/**
 * A Logback encoder writing each event as controller-runtime's zap logger writes a line ({@link
 * ZapLine}): the reconciled resource that JOSDK puts in the MDC becomes controller-runtime's
 * reconcile keys ({@code controllerGroup}, {@code controllerKind}, {@code namespace}, {@code name};
 * the namespace empty for a cluster-scoped object), other MDC entries and SLF4J key-value pairs
 * become fields, a throwable's message the {@code error} key, and at or above the stack trace level
 * the throwable's stack trace (or, without one, the logging call's) the {@code stacktrace} key.
 */
public class ZapEncoder extends EncoderBase<ILoggingEvent> {
  /** JOSDK's MDC keys around a reconcile. */
  private static final String KIND = "resource.kind";

  private static final String API_VERSION = "resource.apiVersion";
  private static final String NAMESPACE = "resource.namespace";
  private static final String NAME = "resource.name";

  /** JOSDK's MDC value for a cluster-scoped resource. */
  private static final String NO_NAMESPACE = "no namespace";

  private final ZapSettings settings;
  private final ZoneId zone;

  public ZapEncoder(ZapSettings settings, ZoneId zone) {
    this.settings = settings;
    this.zone = zone;
  }

  /** zap's level for a Logback level: trace is verbosity 2, as a logr V(2) line. */
  static int zapLevel(Level level) {
    return switch (level.toInt()) {
      case Level.TRACE_INT -> -2;
      case Level.DEBUG_INT -> ZapSettings.DEBUG;
      case Level.INFO_INT -> ZapSettings.INFO;
      case Level.WARN_INT -> ZapSettings.WARN;
      default -> ZapSettings.ERROR;
    };
  }

  @Override
  public byte[] headerBytes() {
    return null;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    int level = zapLevel(event.getLevel());
    IThrowableProxy thrown = event.getThrowableProxy();
    String error = null;
    if (thrown != null) {
      error = thrown.getMessage() != null ? thrown.getMessage() : simpleName(thrown);
    }
    String stack = null;
    if (settings.stacktrace(level)) {
      stack = thrown != null ? ThrowableProxyUtil.asString(thrown) : callerStack(event);
    }
    ZapLine line =
        new ZapLine(
            event.getInstant(),
            level,
            event.getLoggerName(),
            event.getFormattedMessage(),
            fields(event),
            error,
            stack);
    return line.encode(settings, zone).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] footerBytes() {
    return null;
  }

  /**
   * The MDC and key-value pairs as fields, the reconciled resource under controller-runtime's keys.
   */
  static Map<String, String> fields(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    Map<String, String> out = new LinkedHashMap<>();
    if (mdc.containsKey(NAME)) {
      String apiVersion = mdc.getOrDefault(API_VERSION, "");
      int slash = apiVersion.indexOf('/');
      out.put("controllerGroup", slash < 0 ? "" : apiVersion.substring(0, slash));
      out.put("controllerKind", mdc.getOrDefault(KIND, ""));
      String ns = mdc.getOrDefault(NAMESPACE, "");
      out.put("namespace", NO_NAMESPACE.equals(ns) ? "" : ns);
      out.put("name", mdc.get(NAME));
    }
    // The rest in a stable order; JOSDK's version, generation and uid of the object are left out
    // as controller-runtime logs none of them.
    new TreeMap<>(mdc)
        .forEach(
            (k, v) -> {
              if (!k.startsWith("resource.")) {
                out.put(k, v);
              }
            });
    if (event.getKeyValuePairs() != null) {
      for (KeyValuePair kv : event.getKeyValuePairs()) {
        out.put(kv.key, String.valueOf(kv.value));
      }
    }
    return out;
  }

  private static String simpleName(IThrowableProxy thrown) {
    String cls = thrown.getClassName();
    return cls.substring(cls.lastIndexOf('.') + 1);
  }

  /**
   * Where the line was logged from, one frame a line as zap writes a stack: function, then file.
   */
  private static String callerStack(ILoggingEvent event) {
    StringBuilder out = new StringBuilder();
    for (StackTraceElement e : event.getCallerData()) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(e.getClassName())
          .append('.')
          .append(e.getMethodName())
          .append("\n\t")
          .append(e.getFileName())
          .append(':')
          .append(e.getLineNumber());
    }
    return out.toString();
  }
}

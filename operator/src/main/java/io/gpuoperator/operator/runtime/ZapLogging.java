package io.gpuoperator.operator.runtime;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import io.gpuoperator.config.zap.ZapOptions;
import io.gpuoperator.config.zap.ZapSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Applies the {@code --zap-*} flags ({@link ZapOptions}) to the process's Logback: the level and,
 * on every appender of the root logger (stderr, as controller-runtime writes), a {@link
 * ZapEncoder}. Only a process's entry point does this ({@link #entryPoint}): the command it runs
 * owns the process's logging, while the same command hosted in another process (an agent of
 * node-agents, a simulated pod) leaves that process's logging as it is. Commands without the flags
 * keep logback.xml's text.
 */
public final class ZapLogging {
  private ZapLogging() {}

  /**
   * The command line of a process's {@code main}: before running the command, the zap flags of the
   * innermost command that has them are applied; once they are, a failure that ends the command is
   * a log line too (logger {@code setup}, the command's one-line message, as NVIDIA's operator logs
   * a failed start) so that the process's output stays zap's lines. A bad flag stays the plain
   * usage error it is before any logging is set up (as Go's flag package prints it).
   */
  public static CommandLine entryPoint(CommandLine commandLine) {
    CommandLine.IExecutionStrategy run = commandLine.getExecutionStrategy();
    CommandLine.IExecutionExceptionHandler failures = commandLine.getExecutionExceptionHandler();
    AtomicBoolean applied = new AtomicBoolean();
    commandLine.setExecutionStrategy(
        parsed -> {
          ZapOptions zap = options(parsed);
          if (zap != null) {
            apply(zap.settings());
            applied.set(true);
          }
          return run.execute(parsed);
        });
    commandLine.setExecutionExceptionHandler(
        (e, failed, parsed) ->
            applied.get()
                ? logged(failures, e, failed, parsed)
                : failures.handleExecutionException(e, failed, parsed));
    return commandLine;
  }

  /**
   * The failure's exit code from {@code failures}, its one line logged at error instead of printed
   * (with {@code -v}, with the exception: its message as {@code error}, its stack trace at or above
   * the stack trace level).
   */
  private static int logged(
      CommandLine.IExecutionExceptionHandler failures,
      Exception e,
      CommandLine failed,
      ParseResult parsed)
      throws Exception {
    StringWriter lines = new StringWriter();
    PrintWriter err = failed.getErr();
    failed.setErr(new PrintWriter(lines, true));
    int code;
    try {
      code = failures.handleExecutionException(e, failed, parsed);
    } finally {
      failed.setErr(err);
    }
    String text = lines.toString().strip();
    int newline = text.indexOf('\n');
    org.slf4j.Logger setup = LoggerFactory.getLogger("setup");
    if (newline < 0) {
      setup.error(text);
    } else {
      // -v: the exception as the line's error, its stack trace as --zap-stacktrace-level says.
      setup.error(text.substring(0, newline), e);
    }
    return code;
  }

  /** The zap flags of the innermost command invoked that has them, or null. */
  public static ZapOptions options(ParseResult parsed) {
    ZapOptions found = null;
    for (ParseResult r = parsed; r != null; r = r.subcommand()) {
      for (CommandSpec mixin : r.commandSpec().mixins().values()) {
        if (mixin.userObject() instanceof ZapOptions z) {
          found = z;
        }
      }
    }
    return found;
  }

  /** Reconfigures the process's Logback (nothing under another SLF4J binding). */
  public static void apply(ZapSettings settings) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      apply(context, settings, ZoneId.systemDefault());
    }
  }

  /**
   * Reconfigures {@code context}: the root level from the zap level, library loggers that
   * logback.xml set more verbose raised to it (JOSDK also follows it down, its INFO default would
   * hide its debug lines), and every root stream appender's encoder.
   */
  static void apply(LoggerContext context, ZapSettings settings, ZoneId zone) {
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Level level = logbackLevel(settings.level());
    root.setLevel(level);
    for (Logger l : context.getLoggerList()) {
      if (l == root || l.getLevel() == null) {
        continue;
      }
      boolean moreVerbose = !l.getLevel().isGreaterOrEqual(level);
      boolean sdkBelowInfo =
          !level.isGreaterOrEqual(Level.INFO) && l.getName().startsWith("io.javaoperatorsdk");
      if (moreVerbose || sdkBelowInfo) {
        l.setLevel(level);
      }
    }
    // The appenders keep running (stopping one closes its stream): only the encoder changes.
    for (OutputStreamAppender<ILoggingEvent> appender : streamAppenders(root)) {
      ZapEncoder encoder = new ZapEncoder(settings, zone);
      encoder.setContext(context);
      encoder.start();
      appender.setEncoder(encoder);
    }
  }

  /**
   * The Logback level letting through the lines a zap level lets through: a verbosity past debug is
   * trace, panic lets nothing through (no line is logged at panic here; failures still end with
   * their one line on stderr).
   */
  static Level logbackLevel(int zapLevel) {
    if (zapLevel <= -2) {
      return Level.TRACE;
    }
    return switch (zapLevel) {
      case ZapSettings.DEBUG -> Level.DEBUG;
      case ZapSettings.INFO -> Level.INFO;
      case ZapSettings.WARN -> Level.WARN;
      case ZapSettings.ERROR, 3 -> Level.ERROR;
      default -> Level.OFF;
    };
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

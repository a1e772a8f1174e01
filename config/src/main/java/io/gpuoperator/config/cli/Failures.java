package io.gpuoperator.config.cli;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.IoErrors;
import io.gpuoperator.config.Values;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * How every command ends on a failure: one line on stderr, {@code <command>: <what failed>}, and an
 * exit code by kind ({@link ExitCodes}): bad input (a {@link ConfigException}, a bad flag) exits 2,
 * a failing environment (an {@link EnvironmentException}, an I/O error, a cluster that does not
 * answer) exits 1, and anything else is reported as an internal error with exit 1. The stack trace
 * is printed only with {@code -v}.
 */
public final class Failures
    implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {

  /** The flag that adds stack traces to failures (every command has it). */
  public static final String VERBOSE = "--verbose";

  @Override
  public int handleExecutionException(
      Exception e, CommandLine commandLine, ParseResult parseResult) {
    return report(e, commandLine, verbose(parseResult));
  }

  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println(qualifiedName(cl) + ": " + quotedValuesShortened(e.getMessage()));
    err.println("Try '" + qualifiedName(cl) + " --help' for the flags.");
    err.flush();
    return ExitCodes.BAD_INPUT;
  }

  /** Prints the one line for a failure and returns the exit code. */
  public static int report(Throwable e, CommandLine commandLine, boolean verbose) {
    PrintWriter err = commandLine.getErr();
    int code;
    String message;
    Throwable t = unwrap(e);
    if (t instanceof ConfigException || t instanceof ParameterException) {
      code = ExitCodes.BAD_INPUT;
      message = t.getMessage();
    } else if (t instanceof EnvironmentException) {
      code = ExitCodes.FAILED;
      message = t.getMessage();
    } else if (t instanceof IOException io) {
      code = ExitCodes.FAILED;
      message = IoErrors.describe(io);
    } else if (t instanceof KubernetesClientException k) {
      code = ExitCodes.FAILED;
      message =
          "the Kubernetes API server failed: "
              + clusterProblem(k)
              + " (check --kubeconfig and that the cluster answers)";
    } else {
      code = ExitCodes.FAILED;
      // The exception's simple name, which a bug report needs; its message may name Java types,
      // which plain() hides as elsewhere.
      message =
          "internal error: "
              + t.getClass().getSimpleName()
              + (t.getMessage() == null ? "" : ": " + Values.plain(t.getMessage()))
              + (verbose ? "" : " (run with -v for the stack trace, and please report it)");
    }
    err.println(qualifiedName(commandLine) + ": " + firstLine(message));
    if (verbose) {
      e.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof UncheckedIOException || t instanceof CommandLine.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** What went wrong talking to the API server, in words. */
  public static String clusterProblem(KubernetesClientException k) {
    if (k.getCode() > 0) {
      String reason = k.getStatus() != null ? k.getStatus().getMessage() : null;
      return "HTTP " + k.getCode() + (reason == null ? "" : " " + Values.plain(reason));
    }
    Throwable root = k;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
      // The JDK's client wraps a refused connection around a ClosedChannelException: look at
      // every cause, not only the last.
      if (root instanceof java.net.ConnectException) {
        return "connection refused";
      }
    }
    if (root instanceof java.net.UnknownHostException) {
      return "unknown host " + Values.quote(String.valueOf(root.getMessage()));
    }
    if (root instanceof java.net.http.HttpTimeoutException
        || root instanceof java.net.SocketTimeoutException
        || root instanceof java.util.concurrent.TimeoutException) {
      return "no answer in time";
    }
    if (root instanceof javax.net.ssl.SSLException) {
      return "TLS failed: " + Values.plain(root.getMessage());
    }
    String m = Values.plain(root.getMessage());
    return m.isBlank() ? Values.plain(k.getMessage()) : m;
  }

  private static boolean verbose(ParseResult result) {
    for (ParseResult r = result; r != null; r = r.subcommand()) {
      if (r.hasMatchedOption(VERBOSE)) {
        return true;
      }
    }
    return false;
  }

  /**
   * picocli's own messages quote what the user typed in single quotes ({@code but was 'x'}); those
   * values are shown as every other value is: escaped and shortened.
   */
  static String quotedValuesShortened(String message) {
    if (message == null) {
      return "invalid command line";
    }
    String first = message.strip().lines().findFirst().orElse("");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("'([^']*)'").matcher(first);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(Values.quote(m.group(1))));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** {@code gpu-operator device-plugin}, as the user typed it. */
  static String qualifiedName(CommandLine cl) {
    return cl.getCommandSpec().qualifiedName();
  }

  private static String firstLine(String s) {
    if (s == null || s.isBlank()) {
      return "(no detail)";
    }
    return s.strip().lines().findFirst().orElse(s);
  }
}

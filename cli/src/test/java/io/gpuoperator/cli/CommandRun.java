package io.gpuoperator.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One run of {@code gpu-operator ARGS...} in this JVM, as the command tests read it: its exit code
 * and what it printed on stdout and on stderr.
 */
public record CommandRun(int code, String out, String err) {
  /** Runs the command line {@code gpu-operator} has, with {@code args}. */
  public static CommandRun of(String... args) {
    return of(GpuOperatorCommand.commandLine(), args);
  }

  /** Runs {@code cl} (a command configured as the binary configures its own) with {@code args}. */
  public static CommandRun of(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new CommandRun(code, out.toString(), err.toString());
  }
}

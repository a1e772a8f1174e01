package io.gpuoperator.node.mig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a host command and reports how it ended; tests put a recorder in its place. */
@FunctionalInterface
public interface CommandRunner {
  /**
   * How a command ended.
   *
   * @param exitCode its exit status (-1 when it could not start or ran past the timeout)
   * @param output stdout and stderr together, trimmed
   */
  record Result(int exitCode, String output) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /** Runs {@code argv} to its end (at most {@code timeout}). */
  Result run(List<String> argv, Duration timeout) throws InterruptedException;

  /** The real one: a child process, its output collected, killed when it overruns. */
  static CommandRunner processes() {
    return (argv, timeout) -> {
      Process p;
      try {
        p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      } catch (IOException e) {
        return new Result(-1, "cannot run " + argv.get(0) + ": " + e.getMessage());
      }
      try {
        p.getOutputStream().close();
        // systemctl prints little; reading after exit cannot block on a full pipe for long output
        // because the reader thread drains it while we wait.
        var out = new java.io.ByteArrayOutputStream();
        Thread reader =
            new Thread(
                () -> {
                  try (var in = p.getInputStream()) {
                    in.transferTo(out);
                  } catch (IOException ignored) {
                    // the process went away; what was read is kept
                  }
                },
                "command-output");
        reader.setDaemon(true);
        reader.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          return new Result(
              -1, String.join(" ", argv) + ": still running after " + timeout.toSeconds() + " s");
        }
        reader.join(1_000);
        return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8).trim());
      } catch (IOException e) {
        return new Result(-1, e.getMessage());
      } finally {
        if (p.isAlive()) {
          p.destroyForcibly();
        }
      }
    };
  }
}

package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small shell process that removes a run directory (and the files it registered) as soon as the
 * JVM that created it dies, even by SIGKILL, when no shutdown hook runs: the directory holds the
 * control plane's PKI, tokens and etcd data (issue 33 finding 8), which must not wait for the next
 * run's {@link RunDirs#cleanStale}.
 *
 * <p>The JVM's death is seen through the watchdog's stdin, a pipe whose only writer is the JVM
 * (Java closes every other descriptor in the processes it starts): the kernel closes it when the
 * JVM dies, and the watchdog's {@code read} returns end of file at once, with no polling and no pid
 * that could be reused. A run that removes its directory itself writes a line instead ({@link
 * #release}), and the watchdog exits leaving everything as it is (which also keeps a directory kept
 * on purpose). Before removing, the watchdog waits (at most {@value #WAIT_SECONDS} s) for the
 * processes registered in the directory's marker ({@code pid=} lines): their own watchdogs stop the
 * control-plane binaries, which may still write into the directory.
 */
final class RunDirWatchdog {
  static final int WAIT_SECONDS = 15;

  private static final String SCRIPT =
      "if read -r line; then exit 0; fi\n"
          + "owner=\"$1/"
          + RunDirs.OWNER
          + "\"\n"
          + "pids=$(sed -n 's/^pid=//p' \"$owner\" 2>/dev/null)\n"
          + "i=0\n"
          + "while [ $i -lt $((WAIT * 5)) ]; do\n"
          + "  alive=\n"
          + "  for p in $pids; do kill -0 \"$p\" 2>/dev/null && alive=1; done\n"
          + "  [ -z \"$alive\" ] && break\n"
          + "  sleep 0.2; i=$((i + 1))\n"
          + "done\n"
          + "sed -n 's/^file=//p' \"$owner\" 2>/dev/null | while IFS= read -r f; do"
          + " rm -f -- \"$f\"; done\n"
          + "rm -rf -- \"$1\"\n";

  private final Process shell;
  private final OutputStream pipe;

  private RunDirWatchdog(Process shell) {
    this.shell = shell;
    this.pipe = shell.getOutputStream();
  }

  /** Starts the watchdog of {@code dir}; it is named for the directory in {@code ps}. */
  static RunDirWatchdog start(Path dir) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of("/bin/sh", "-c", SCRIPT, "gpu-operator-run-dir-watchdog", dir.toString()))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("WAIT", Integer.toString(WAIT_SECONDS));
    return new RunDirWatchdog(pb.start());
  }

  /** Tells the watchdog the run is over and its directory handled: it exits, removing nothing. */
  void release() {
    try {
      pipe.write("done\n".getBytes(StandardCharsets.US_ASCII));
      pipe.close();
      if (!shell.waitFor(5, TimeUnit.SECONDS)) {
        shell.destroyForcibly();
      }
    } catch (IOException e) {
      shell.destroyForcibly(); // it is gone already
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      shell.destroyForcibly();
    }
  }

  /** As the JVM's death looks to the watchdog (its pipe closed): it cleans up (for tests). */
  void ownerGone() throws IOException {
    pipe.close();
  }

  Process process() {
    return shell;
  }
}

package io.gpuoperator.node.toolkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the runtime load its new config, as NVIDIA's toolkit does: {@code signal} sends SIGHUP to
 * the process on the runtime's socket (found by the socket's peer credentials; containerd does not
 * handle SIGHUP, so it exits and systemd starts it again with the new config), {@code systemd} runs
 * {@code systemctl restart <unit>} in the host's root, {@code none} does nothing. Retries a few
 * times before failing with what to do.
 */
public final class RuntimeRestarter {
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeRestarter.class);
  static final int SIGHUP = 1;

  /** How to restart. */
  public enum Mode {
    SIGNAL,
    SYSTEMD,
    NONE;

    /** {@code signal}, {@code systemd} or {@code none}. */
    public static Mode parse(String s) {
      return io.gpuoperator.config.Parse.constant("runtime restart mode", values()).apply(s);
    }
  }

  private final Mode mode;
  private final Path socket;
  private final String hostRoot;
  private final String unit;
  private final int attempts;
  private final Duration backoff;

  /**
   * @param socket the runtime's socket as this process sees it (signal mode)
   * @param hostRoot the host's root as this process sees it (systemd mode)
   * @param unit the systemd unit, e.g. {@code crio}
   */
  public RuntimeRestarter(
      Mode mode, Path socket, String hostRoot, String unit, int attempts, Duration backoff) {
    this.mode = mode;
    this.socket = socket;
    this.hostRoot = hostRoot;
    this.unit = unit;
    this.attempts = Math.max(1, attempts);
    this.backoff = backoff;
  }

  /** Restarts, retrying; the last failure names the mode and the way out. */
  public void restart() throws IOException, InterruptedException {
    if (mode == Mode.NONE) {
      return;
    }
    IOException last = null;
    for (int i = 1; i <= attempts; i++) {
      try {
        once();
        return;
      } catch (IOException e) {
        last = e;
        LOG.warn("restarting the runtime failed (attempt {}/{}): {}", i, attempts, e.getMessage());
        if (i < attempts) {
          Thread.sleep(backoff.toMillis());
        }
      }
    }
    throw new IOException(
        "could not restart the runtime after "
            + attempts
            + " attempts ("
            + mode.name().toLowerCase(java.util.Locale.ROOT)
            + " mode): "
            + last.getMessage()
            + (mode == Mode.SIGNAL
                ? "; check that the runtime socket is mounted (RUNTIME_SOCKET) and the pod runs"
                    + " with hostPID, or set RUNTIME_RESTART_MODE=systemd"
                : "; check that HOST_ROOT_MOUNT is the host's root and systemctl works there, or"
                    + " restart the runtime by hand"),
        last);
  }

  private void once() throws IOException, InterruptedException {
    if (mode == Mode.SIGNAL) {
      int pid = PeerCredentials.pid(socket);
      LOG.info("sending SIGHUP to the runtime (pid {} on {})", pid, socket);
      PeerCredentials.kill(pid, SIGHUP);
      return;
    }
    List<String> cmd = new ArrayList<>();
    if (hostRoot != null && !hostRoot.equals("/")) {
      cmd.add("chroot");
      cmd.add(hostRoot);
    }
    cmd.addAll(List.of("systemctl", "restart", unit));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    // Read on another thread: reading here would block past the time limit on a hung systemctl.
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                return "";
              }
            });
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.join().strip());
    }
  }
}

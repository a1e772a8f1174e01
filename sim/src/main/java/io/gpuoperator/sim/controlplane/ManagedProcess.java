package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One control-plane binary, started under a small shell watchdog: the shell forwards SIGTERM to the
 * binary, and kills it if the JVM that started it disappears (even by SIGKILL), so no etcd or
 * kube-* process outlives its owner.
 */
record ManagedProcess(String name, Process shell, Path log) {
  private static final String WATCHDOG =
      "\"$@\" & child=$!\n"
          + "trap 'kill -TERM $child 2>/dev/null; wait $child; exit 0' TERM INT\n"
          + "while kill -0 $child 2>/dev/null; do\n"
          + "  if ! kill -0 $OWNER_PID 2>/dev/null; then kill -TERM $child; sleep 5;"
          + " kill -KILL $child 2>/dev/null; exit 0; fi\n"
          + "  sleep 1 & wait $!\n"
          + "done\n"
          + "wait $child\n";

  static ManagedProcess start(String name, List<String> command, Path log) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", WATCHDOG, name));
    cmd.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("OWNER_PID", Long.toString(ProcessHandle.current().pid()));
    return new ManagedProcess(name, pb.start(), log);
  }

  /** The watchdog shell's pid: it lives as long as its binary, and stops it when the JVM dies. */
  long pid() {
    return shell.pid();
  }

  /** The watchdog exits as soon as its binary does, so its liveness is the binary's. */
  boolean isAlive() {
    return shell.isAlive();
  }

  List<Long> childPids() {
    return binaries().stream().map(ProcessHandle::pid).toList();
  }

  /** The binary itself among the watchdog's children (the others are its sleeps). */
  private List<ProcessHandle> binaries() {
    return shell
        .toHandle()
        .children()
        .filter(
            h ->
                h.info()
                    .command()
                    .map(c -> java.nio.file.Paths.get(c).getFileName().toString().equals(name))
                    .orElse(false))
        .toList();
  }

  /** SIGTERM to the binary (through the watchdog), then SIGKILL to both after the grace period. */
  void stop(Duration grace) {
    List<ProcessHandle> children = shell.toHandle().children().toList();
    shell.destroy();
    try {
      if (!shell.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        children.forEach(ProcessHandle::destroyForcibly);
        shell.destroyForcibly();
        shell.waitFor(5, TimeUnit.SECONDS);
      }
      for (ProcessHandle child : children) {
        child.onExit().get(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      children.forEach(ProcessHandle::destroyForcibly);
    } catch (Exception e) {
      children.forEach(ProcessHandle::destroyForcibly);
    }
  }

  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

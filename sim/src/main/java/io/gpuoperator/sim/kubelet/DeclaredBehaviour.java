package io.gpuoperator.sim.kubelet;

import io.gpuoperator.config.GoDuration;
import io.gpuoperator.config.Values;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a simulated container does when no real code runs for it: waits for marker files, becomes
 * ready after a delay, writes marker files into the node's validations directory, and optionally
 * exits after a while with an exit code.
 *
 * @param readyAfter delay between start and readiness
 * @param exitAfter when set, the container exits this long after it started
 * @param exitCode exit code when it exits
 * @param ready whether it ever becomes ready (false: it runs but stays unready)
 * @param writes marker files written into the validations directory once ready (removed on stop)
 * @param waitFor marker files in the validations directory that must exist before it starts ({@code
 *     a|b}: either of them)
 * @param files host files (path on the real node, then content) written with the markers and
 *     removed on stop, e.g. the runtime config and CDI spec the toolkit would write
 */
public record DeclaredBehaviour(
    Duration readyAfter,
    Duration exitAfter,
    int exitCode,
    boolean ready,
    List<String> writes,
    List<String> waitFor,
    Map<String, String> files) {

  public DeclaredBehaviour {
    readyAfter = readyAfter == null ? Duration.ZERO : readyAfter;
    writes = writes == null ? List.of() : List.copyOf(writes);
    waitFor = waitFor == null ? List.of() : List.copyOf(waitFor);
    files = files == null ? Map.of() : Map.copyOf(files);
    for (String path : files.keySet()) {
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException(
            "files: " + Values.quote(path) + " is not an absolute host path");
      }
    }
  }

  /** Runs forever, ready after the delay. */
  public static DeclaredBehaviour runs(Duration readyAfter) {
    return new DeclaredBehaviour(readyAfter, null, 0, true, List.of(), List.of(), Map.of());
  }

  /** Runs to completion: exits 0 after the delay. */
  public static DeclaredBehaviour completes(Duration after) {
    return new DeclaredBehaviour(Duration.ZERO, after, 0, false, List.of(), List.of(), Map.of());
  }

  /** Fails: exits with the code after the delay, never ready. */
  public static DeclaredBehaviour fails(Duration after, int exitCode) {
    return new DeclaredBehaviour(
        Duration.ZERO, after, exitCode, false, List.of(), List.of(), Map.of());
  }

  public DeclaredBehaviour withWrites(List<String> files) {
    return new DeclaredBehaviour(
        readyAfter, exitAfter, exitCode, ready, files, waitFor, this.files);
  }

  public DeclaredBehaviour withWaitFor(List<String> files) {
    return new DeclaredBehaviour(readyAfter, exitAfter, exitCode, ready, writes, files, this.files);
  }

  public DeclaredBehaviour withFiles(Map<String, String> hostFiles) {
    return new DeclaredBehaviour(
        readyAfter, exitAfter, exitCode, ready, writes, waitFor, hostFiles);
  }

  /** Parses Go durations ("500ms", "2s", "1m30s"); a bare whole number means seconds. */
  public static Duration parseDuration(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.matches("\\d{1,9}")) {
      return Duration.ofSeconds(Long.parseLong(t));
    }
    if (t.equals("infinite")) {
      throw new IllegalArgumentException(
          "expected a duration such as 500ms, 2s, 1m, got " + Values.quote(text));
    }
    return GoDuration.parse(t);
  }
}

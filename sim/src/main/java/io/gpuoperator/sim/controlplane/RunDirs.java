package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temp directories of a run (control plane, simulated nodes), each marked with its owner
 * process. A run killed before it could clean up (SIGKILL, a second Ctrl-C) leaves nothing for
 * long: each directory's {@link RunDirWatchdog} removes it, with the files it registered (a
 * kubeconfig written for the user), as soon as the JVM is gone. Should the watchdog be killed too,
 * the next run's {@link #cleanStale} removes the directories whose owner process is gone, never
 * those of a live process. Secrets in them are written readable by the owner only ({@link
 * #writeSecret}).
 */
public final class RunDirs {
  private static final Logger LOG = LoggerFactory.getLogger(RunDirs.class);

  /** The marker in each run directory: owner pid, its start time, then files it registered. */
  static final String OWNER = ".owner";

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  /** The watchdog of each directory this process created and has not removed yet. */
  private static final Map<Path, RunDirWatchdog> WATCHDOGS = new ConcurrentHashMap<>();

  private RunDirs() {}

  /**
   * A new temp directory (mode 0700) owned by this process, watched by a {@link RunDirWatchdog}
   * that removes it if this process dies without {@link #remove} or {@link #release}; stale ones
   * with the same prefix are removed first.
   */
  public static Path create(String prefix) throws IOException {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    cleanStale(tmp, prefix);
    Path dir = Files.createTempDirectory(prefix);
    ProcessHandle self = ProcessHandle.current();
    Files.writeString(
        dir.resolve(OWNER),
        self.pid() + "\n" + self.info().startInstant().map(Instant::toString).orElse("") + "\n");
    WATCHDOGS.put(dir, RunDirWatchdog.start(dir));
    return dir;
  }

  /** Records a file outside the directory that belongs to the run (removed with it if stale). */
  public static void register(Path dir, Path file) throws IOException {
    Files.writeString(
        dir.resolve(OWNER), "file=" + file.toAbsolutePath() + "\n", StandardOpenOption.APPEND);
  }

  /**
   * Records a process of the run that may write into the directory: should the run die, its
   * watchdog waits for the process to end before removing the directory.
   */
  static void registerProcess(Path dir, long pid) throws IOException {
    Files.writeString(dir.resolve(OWNER), "pid=" + pid + "\n", StandardOpenOption.APPEND);
  }

  /** Removes a directory this process created, at the end of its run, and stops its watchdog. */
  public static void remove(Path dir) {
    deleteTree(dir);
    release(dir);
  }

  /** Stops the watchdog of a directory this process created, leaving the directory as it is. */
  public static void release(Path dir) {
    RunDirWatchdog watchdog = WATCHDOGS.remove(dir);
    if (watchdog != null) {
      watchdog.release();
    }
  }

  /** The watchdog of a directory this process created and has not removed (null: none). */
  static RunDirWatchdog watchdog(Path dir) {
    return WATCHDOGS.get(dir);
  }

  /** Writes a file only its owner may read (keys, tokens, kubeconfigs). */
  public static void writeSecret(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    Files.writeString(file, content, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
  }

  /** Makes a file readable by its owner only. */
  public static void ownerOnly(Path file) throws IOException {
    Files.setPosixFilePermissions(file, OWNER_ONLY);
  }

  /**
   * Removes the directories under {@code tmp} named {@code prefix*} whose owner process is gone,
   * with the files they registered; returns what was removed.
   */
  public static List<Path> cleanStale(Path tmp, String prefix) {
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, prefix + "*")) {
      for (Path dir : dirs) {
        Path owner = dir.resolve(OWNER);
        if (!Files.isDirectory(dir) || !Files.isRegularFile(owner)) {
          continue; // not ours to judge: no marker
        }
        List<String> lines;
        try {
          lines = Files.readAllLines(owner);
        } catch (IOException e) {
          continue;
        }
        if (lines.isEmpty() || alive(lines)) {
          continue;
        }
        for (String l : lines) {
          if (l.startsWith("file=")) {
            Path f = Path.of(l.substring("file=".length()));
            try {
              if (Files.deleteIfExists(f)) {
                removed.add(f);
              }
            } catch (IOException e) {
              LOG.warn("cannot remove {} of a stopped run: {}", f, e.toString());
            }
          }
        }
        deleteTree(dir);
        removed.add(dir);
        LOG.info("removed {} left by a run that is gone (pid {})", dir, lines.get(0));
      }
    } catch (IOException e) {
      LOG.warn("cannot look for stale run directories in {}: {}", tmp, e.toString());
    }
    return removed;
  }

  /** True while the recorded process runs (the same pid with the same start time). */
  private static boolean alive(List<String> lines) {
    long pid;
    try {
      pid = Long.parseLong(lines.get(0).strip());
    } catch (NumberFormatException e) {
      return true; // unreadable: leave it alone
    }
    Optional<ProcessHandle> p = ProcessHandle.of(pid);
    if (p.isEmpty() || !p.get().isAlive()) {
      return false;
    }
    String started = lines.size() > 1 ? lines.get(1).strip() : "";
    return started.isEmpty()
        || p.get().info().startInstant().map(i -> i.toString().equals(started)).orElse(true);
  }

  /** Deletes a directory tree; what cannot be deleted is logged. */
  public static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  LOG.warn("cannot delete {}: {}", p, e.toString());
                }
              });
    } catch (IOException e) {
      LOG.warn("cannot delete {}: {}", root, e.toString());
    }
  }
}

package io.gpuoperator.node.validator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/** The validations directory: marker files written atomically, deleted, and waited for. */
public final class MarkerFiles {
  private final Path dir;

  public MarkerFiles(Path dir) {
    this.dir = dir;
  }

  public Path dir() {
    return dir;
  }

  public Path path(String name) {
    return dir.resolve(name);
  }

  public boolean exists(String name) {
    return Files.exists(path(name));
  }

  public void delete(String name) throws IOException {
    Files.deleteIfExists(path(name));
  }

  /** Writes the file through a temp file and a rename, so readers never see it half-written. */
  public void write(String name, String content) throws IOException {
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + name, ".tmp");
    try {
      Files.writeString(tmp, content);
      Files.move(
          tmp, path(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Completes once the marker exists, checked every {@code poll} on the run's scheduler (no thread
   * waits in between); a zero timeout waits forever (like the original's init containers).
   */
  CompletableFuture<Void> await(Waits waits, String name, Duration poll, Duration timeout) {
    Instant deadline = timeout.isZero() ? Instant.MAX : Instant.now().plus(timeout);
    return waits.poll(
        poll,
        () -> {
          if (!exists(name)) {
            throw new ValidationException(
                "timed out after " + timeout.toSeconds() + " s waiting for " + path(name));
          }
          return null;
        },
        notYet -> !Instant.now().isAfter(deadline));
  }
}

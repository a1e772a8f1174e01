package io.gpuoperator.node.validator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;

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
   * Waits until the marker exists, polling; a zero timeout waits forever (like the original's init
   * containers).
   */
  public void await(String name, Duration poll, Duration timeout)
      throws ValidationException, InterruptedException {
    Instant deadline = timeout.isZero() ? Instant.MAX : Instant.now().plus(timeout);
    while (!exists(name)) {
      if (Instant.now().isAfter(deadline)) {
        throw new ValidationException(
            "timed out after " + timeout.toSeconds() + " s waiting for " + path(name));
      }
      Thread.sleep(poll.toMillis());
    }
  }
}

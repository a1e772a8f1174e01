package io.gpuoperator.node.toolkit;

import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The copy of a runtime config taken before the toolkit first changes it, kept beside it until
 * uninstall has put things back: {@code <file>.gpu-operator.orig} (the bytes), or {@code
 * <file>.gpu-operator.absent} when there was no file. Taken once: a second install (a restarted
 * pod) keeps the first copy, so the original is never lost. The suffixes match no runtime's {@code
 * *.toml} / {@code *.conf} import glob.
 */
final class Backups {
  static final String ORIGINAL_SUFFIX = ".gpu-operator.orig";
  static final String ABSENT_SUFFIX = ".gpu-operator.absent";

  private Backups() {}

  static Path originalOf(Path file) {
    return file.resolveSibling(file.getFileName() + ORIGINAL_SUFFIX);
  }

  static Path absentOf(Path file) {
    return file.resolveSibling(file.getFileName() + ABSENT_SUFFIX);
  }

  /** Whether a backup (of either kind) exists. */
  static boolean taken(Path file) {
    return Files.exists(originalOf(file), LinkOption.NOFOLLOW_LINKS)
        || Files.exists(absentOf(file), LinkOption.NOFOLLOW_LINKS);
  }

  /** Takes the backup unless one exists. */
  static void ensure(Path file, Optional<byte[]> current) throws IOException {
    if (taken(file)) {
      return;
    }
    if (current.isPresent()) {
      AtomicFile.write(originalOf(file), current.get());
    } else {
      AtomicFile.write(absentOf(file), new byte[0]);
    }
  }

  /**
   * The original: empty when the file did not exist; null when no backup was taken (nothing of the
   * toolkit's to revert, or it was taken by something else).
   */
  static Optional<byte[]> original(Path file) throws IOException {
    if (Files.isRegularFile(originalOf(file), LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(Files.readAllBytes(originalOf(file)));
    }
    if (Files.exists(absentOf(file), LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    return null;
  }

  /** Removes the backup once the original is back. */
  static void clear(Path file) throws IOException {
    AtomicFile.delete(originalOf(file));
    AtomicFile.delete(absentOf(file));
  }
}

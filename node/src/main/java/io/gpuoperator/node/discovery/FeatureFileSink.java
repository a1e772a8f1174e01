package io.gpuoperator.node.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.SortedMap;

/**
 * Writes NFD's local feature file ({@code key=value} lines) atomically: a temp file in the same
 * directory renamed over the target, so NFD never reads a half-written file. Unchanged content is
 * not rewritten. The file is kept on exit (the original deletes it, which drops the labels until
 * the next start).
 */
public final class FeatureFileSink implements LabelSink {
  private final Path file;

  public FeatureFileSink(Path file) {
    this.file = file;
  }

  @Override
  public void publish(SortedMap<String, String> labels) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : labels.entrySet()) {
      sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
    }
    String content = sb.toString();
    if (Files.exists(file) && Files.readString(file).equals(content)) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + file.getFileName() + "-", ".tmp");
    try {
      Files.writeString(tmp, content, StandardCharsets.UTF_8);
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      } catch (UnsupportedOperationException e) {
        // Not a POSIX file system: keep the default mode.
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException(file + ": the file system cannot replace it atomically", e);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  @Override
  public String describe() {
    return "file " + file;
  }
}

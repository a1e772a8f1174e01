package io.gpuoperator.node.files;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes node files so that nothing is ever half-written, even across a crash or power loss: a temp
 * file in the same directory, flushed to disk, renamed over the target, and the directory flushed
 * so the rename itself survives.
 */
public final class AtomicFiles {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private AtomicFiles() {}

  /** Writes a value as indented JSON. */
  public static void writeJson(Path file, Object value) throws IOException {
    write(file, JSON.writeValueAsBytes(value));
  }

  /** Writes text (UTF-8). */
  public static void writeString(Path file, String text) throws IOException {
    write(file, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes bytes. */
  public static void write(Path file, byte[] content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        var buffer = java.nio.ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          ch.write(buffer);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Deletes a file and flushes its directory, so the deletion survives a crash too. */
  public static boolean delete(Path file) throws IOException {
    boolean deleted = Files.deleteIfExists(file);
    if (deleted) {
      syncDirectory(file.toAbsolutePath().getParent());
    }
    return deleted;
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot open a directory for reading; the rename is still atomic there.
    }
  }
}

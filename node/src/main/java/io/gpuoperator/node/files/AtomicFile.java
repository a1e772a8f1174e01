package io.gpuoperator.node.files;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.UUID;

/**
 * The one writer of node files, so that nothing is ever half-written: a temp file in the same
 * directory, fsync, then a rename over the target, then an fsync of the directory. A reader
 * (containerd, CRI-O, a container runtime reading CDI specs) sees the old file or the new one,
 * never a mix; a crash before the rename leaves the old file as it was and a temp file that the
 * next write of the same target removes. Temp names end in {@value #TMP_SUFFIX}, so that no {@code
 * *.toml} or {@code *.yaml} glob of a runtime ever picks one up.
 */
public final class AtomicFile {
  /** Suffix of temp files. */
  public static final String TMP_SUFFIX = ".gpu-operator-tmp";

  /** Runs between the synced temp file and the rename; tests use it to crash there. */
  @FunctionalInterface
  public interface BeforeRename {
    /** Nothing happens there in production. */
    BeforeRename NONE = (tmp, target) -> {};

    void run(Path tmp, Path target) throws IOException;
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private AtomicFile() {}

  /** Replaces {@code file} with {@code value} as indented JSON (checkpoints, claim specs). */
  public static void writeJson(Path file, Object value) throws IOException {
    write(file, JSON.writeValueAsBytes(value));
  }

  /** Replaces {@code file} with {@code content}, keeping its permissions when it exists. */
  public static void write(Path file, byte[] content) throws IOException {
    write(file, content, BeforeRename.NONE);
  }

  /**
   * As {@link #write(Path, byte[])}, running {@code hook} just before the rename. A failure says
   * which file could not be written and why (e.g. a read-only directory).
   */
  public static void write(Path file, byte[] content, BeforeRename hook) throws IOException {
    try {
      writeOrThrow(file, content, hook);
    } catch (java.nio.file.FileSystemException e) {
      String reason = e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
      throw new IOException(
          "cannot write " + file.toAbsolutePath() + ": " + reason + " (at " + e.getFile() + ")", e);
    }
  }

  private static void writeOrThrow(Path file, byte[] content, BeforeRename hook)
      throws IOException {
    Path target = file.toAbsolutePath();
    Path dir = target.getParent();
    Files.createDirectories(dir);
    removeStale(target);
    Path tmp =
        dir.resolve(
            "."
                + target.getFileName()
                + "."
                + UUID.randomUUID().toString().substring(0, 8)
                + TMP_SUFFIX);
    try {
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      if (Files.exists(target)) {
        var from = Files.getFileAttributeView(target, PosixFileAttributeView.class);
        if (from != null) {
          Files.setPosixFilePermissions(tmp, from.readAttributes().permissions());
        }
      }
      hook.run(tmp, target);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    syncDirectory(dir);
  }

  /** Deletes {@code file} (if present) and makes the removal durable. */
  public static boolean delete(Path file) throws IOException {
    boolean deleted = Files.deleteIfExists(file);
    if (deleted) {
      syncDirectory(file.toAbsolutePath().getParent());
    }
    return deleted;
  }

  /** Removes temp files a crashed earlier write of {@code file} left behind. */
  public static void removeStale(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      return;
    }
    String prefix = "." + file.getFileName() + ".";
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, prefix + "*" + TMP_SUFFIX)) {
      for (Path p : s) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot open or sync a directory; the rename itself has happened.
    }
  }
}

package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads and writes the {@link Checkpoint} file. Every write replaces the file atomically (temp
 * file, fsync, rename), so a crash leaves the old or the new checkpoint, never a torn one. A file
 * that cannot be read stops the plugin rather than being overwritten: its claims would be lost.
 */
public final class CheckpointStore {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Path file;

  public CheckpointStore(Path file) {
    this.file = file;
  }

  public Path file() {
    return file;
  }

  /** The checkpoint on disk; empty when there is none yet. */
  public Checkpoint load() throws IOException {
    if (!Files.exists(file)) {
      return Checkpoint.empty();
    }
    Checkpoint c;
    try {
      c = JSON.readValue(file.toFile(), Checkpoint.class);
    } catch (IOException e) {
      throw unreadable(
          file, e, "(their CDI specs and MIG devices then stay until removed by hand)");
    }
    if (c.version() != Checkpoint.VERSION) {
      throw new IOException(
          "checkpoint "
              + file
              + " has format version "
              + c.version()
              + "; this plugin reads version "
              + Checkpoint.VERSION);
    }
    return c;
  }

  /** Why a checkpoint file cannot be used, and what to do about it (plus {@code consequence}). */
  static IOException unreadable(Path file, IOException e, String consequence) {
    return new IOException(
        "checkpoint "
            + file
            + " cannot be read ("
            + e.getMessage()
            + "); it lists the claims prepared on this node: repair it, or move it away to start"
            + " with none "
            + consequence,
        e);
  }

  /** Replaces the checkpoint on disk. */
  public void save(Checkpoint checkpoint) throws IOException {
    AtomicFile.writeJson(file, checkpoint);
  }
}

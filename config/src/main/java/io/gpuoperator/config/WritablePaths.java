package io.gpuoperator.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks, before anything starts, that a directory or file a setting names can be written, so a
 * read-only path is one line naming the setting instead of a failure halfway through.
 */
public final class WritablePaths {
  private WritablePaths() {}

  /** Creates the directory if needed and checks it is writable; ConfigException naming origin. */
  public static Path directory(Path dir, String origin) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ConfigException(
          origin + ": cannot create " + Values.quote(dir) + ": " + IoErrors.describe(e), e);
    }
    if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new ConfigException(origin + ": " + Values.quote(dir) + " is not a writable directory");
    }
    return dir;
  }

  /**
   * Checks, without creating anything, that a file can be created or replaced: its directory (or
   * the nearest existing one above it, where it will be created) is writable.
   */
  public static Path file(Path file, String origin) {
    Path abs = file.toAbsolutePath();
    if (Files.isDirectory(abs)) {
      throw new ConfigException(
          origin + ": " + Values.quote(file) + " is a directory, expected a file");
    }
    Path dir = abs.getParent();
    while (dir != null && !Files.exists(dir)) {
      dir = dir.getParent();
    }
    if (dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
      throw new ConfigException(
          origin
              + ": cannot write "
              + Values.quote(file)
              + ": "
              + Values.quote(dir)
              + " is not a writable directory");
    }
    if (Files.exists(abs) && !Files.isWritable(abs)) {
      throw new ConfigException(origin + ": " + Values.quote(file) + " is not writable");
    }
    return file;
  }

  /** As {@link #directory(Path, String)} for a resolved setting. */
  public static Path directory(Settings s, Setting<Path> setting) {
    Settings.Resolved<Path> r = s.resolve(setting);
    return r.value() == null
        ? null
        : directory(r.value(), r.origin().equals("default") ? setting.name() : r.origin());
  }
}

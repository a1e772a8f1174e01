package io.gpuoperator.node.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds a fake driver root for the CDI tests: files and links at absolute paths as the driver's
 * container sees them ({@code /usr/lib/...}, {@code /dev/nvidia0}), placed under {@code root}.
 */
final class DriverRootFiles {
  private DriverRootFiles() {}

  /** A file whose content names it. */
  static void file(Path root, String path) throws IOException {
    Files.writeString(parentsOf(root, path), "fake " + path);
  }

  /** A symbolic link to {@code target}, written as given (absolute, relative or escaping). */
  static void link(Path root, String path, String target) throws IOException {
    Files.createSymbolicLink(parentsOf(root, path), Path.of(target));
  }

  private static Path parentsOf(Path root, String path) throws IOException {
    Path p = root.resolve(path.substring(1));
    Files.createDirectories(p.getParent());
    return p;
  }
}

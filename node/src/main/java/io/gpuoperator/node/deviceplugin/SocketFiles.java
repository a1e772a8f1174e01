package io.gpuoperator.node.deviceplugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/** Tells a socket file from its re-created successor. */
final class SocketFiles {
  private SocketFiles() {}

  /**
   * An identity of the file now: device and inode plus modification and change times, since a
   * deleted socket's inode number is often reused at once by the next one. Null when absent.
   */
  static Object identity(Path p) {
    try {
      BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
      Object ctime;
      try {
        ctime = Files.getAttribute(p, "unix:ctime");
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        ctime = null;
      }
      return List.of(
          String.valueOf(a.fileKey()), a.lastModifiedTime().toString(), String.valueOf(ctime));
    } catch (IOException e) {
      return null;
    }
  }
}

package io.gpuoperator.node.deviceplugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells a socket file from its re-created successor, and names the sockets two plugins of one
 * resource use side by side while a rolling update overlaps them ({@code nvidia-gpu.sock}, then
 * {@code nvidia-gpu-1.sock} for the pod started next to it).
 */
final class SocketFiles {
  /** How many plugins of one resource may serve at once (maxSurge 1 needs two). */
  static final int SLOTS = 4;

  private SocketFiles() {}

  /** The socket names of a resource, the usual one first. */
  static List<String> names(String socketName) {
    String stem = socketName.substring(0, socketName.length() - ".sock".length());
    List<String> out = new ArrayList<>();
    out.add(socketName);
    for (int i = 1; i < SLOTS; i++) {
      out.add(stem + "-" + i + ".sock");
    }
    return out;
  }

  /** When the file was last created or written, or null when absent. */
  static FileTime created(Path p) {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class).lastModifiedTime();
    } catch (IOException e) {
      return null;
    }
  }

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

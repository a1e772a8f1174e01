package io.gpuoperator.sim.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * One simulated node's own state directories, stand-ins for its host paths: validations
 * (/run/nvidia/validations), device-plugin sockets, pod-resources socket, driver root, CDI specs,
 * and a "host" root for every other host path.
 */
public record NodeDirs(Path root) {

  /** Creates the directories of node {@code name} under {@code parent}. */
  public static NodeDirs create(Path parent, String name) throws IOException {
    NodeDirs dirs = new NodeDirs(parent.resolve(name));
    for (String sub : KubeletConstants.HOST_PATHS.values()) {
      Files.createDirectories(dirs.root.resolve(sub));
    }
    Files.createDirectories(dirs.host());
    return dirs;
  }

  /**
   * The kubelet's root directory stand-in ({@code /var/lib/kubelet}): {@code device-plugins/} and
   * {@code pod-resources/} are below it.
   */
  public Path kubeletDir() {
    return root;
  }

  public Path validations() {
    return root.resolve("validations");
  }

  public Path devicePlugins() {
    return root.resolve("device-plugins");
  }

  public Path podResources() {
    return root.resolve("pod-resources");
  }

  public Path driverRoot() {
    return root.resolve("driver");
  }

  public Path cdi() {
    return root.resolve("cdi");
  }

  /** Root of every host path that has no directory of its own. */
  public Path host() {
    return root.resolve("host");
  }

  /**
   * Where a host path of the real node lives for this simulated node: the well-known paths map to
   * their own directories (also for paths below them), everything else goes under {@link #host()}.
   */
  public Path hostPath(String path) {
    for (Map.Entry<String, String> e : KubeletConstants.HOST_PATHS.entrySet()) {
      String known = e.getKey();
      if (path.equals(known)) {
        return root.resolve(e.getValue());
      }
      if (path.startsWith(known + "/")) {
        return root.resolve(e.getValue()).resolve(path.substring(known.length() + 1));
      }
    }
    String relative = path.startsWith("/") ? path.substring(1) : path;
    Path resolved = host().resolve(relative).normalize();
    if (!resolved.startsWith(host())) {
      throw new IllegalArgumentException("host path " + path + " escapes the node's directory");
    }
    return resolved;
  }
}

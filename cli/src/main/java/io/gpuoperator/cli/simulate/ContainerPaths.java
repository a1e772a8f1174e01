package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.gpuoperator.sim.kubelet.AgentContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * Resolves a path inside a simulated container to the simulated node's directories, through the
 * container's volume mounts as the kubelet would: a hostPath volume maps to the node's host path, a
 * configMap volume is projected into a directory of its own, an emptyDir is a directory of the pod
 * that all its containers share.
 */
final class ContainerPaths {
  private ContainerPaths() {}

  /** Where {@code containerPath} of the agent's container lives on the simulated node. */
  static Path resolve(AgentContext ctx, String containerPath) throws IOException {
    VolumeMount best = null;
    for (VolumeMount m : mounts(ctx)) {
      String mp = trimSlash(m.getMountPath());
      if ((containerPath.equals(mp) || containerPath.startsWith(mp + "/"))
          && (best == null || mp.length() > trimSlash(best.getMountPath()).length())) {
        best = m;
      }
    }
    if (best == null) {
      return ctx.hostPath(containerPath);
    }
    String rest = containerPath.substring(trimSlash(best.getMountPath()).length());
    Volume v = volume(ctx, best.getName());
    if (v != null && v.getHostPath() != null) {
      return ctx.hostPath(trimSlash(v.getHostPath().getPath()) + rest);
    }
    if (v != null && v.getConfigMap() != null) {
      Path dir = projectConfigMap(ctx, v);
      return rest.isEmpty() ? dir : dir.resolve(rest.substring(1));
    }
    if (v != null && v.getEmptyDir() != null) {
      Path dir = podVolume(ctx, v);
      Files.createDirectories(dir);
      return rest.isEmpty() ? dir : dir.resolve(rest.substring(1));
    }
    return ctx.hostPath(containerPath);
  }

  /**
   * Writes the ConfigMap's entries into a directory for this pod and volume, once at container
   * start (the kubelet's later refreshes are not simulated). A missing ConfigMap fails the
   * container, as a missing non-optional ConfigMap volume does.
   */
  static Path projectConfigMap(AgentContext ctx, Volume v) throws IOException {
    String ns = ctx.container().pod().getMetadata().getNamespace();
    String name = v.getConfigMap().getName();
    ConfigMap cm = ctx.client().configMaps().inNamespace(ns).withName(name).get();
    if (cm == null) {
      throw new IOException(
          "configMap volume " + v.getName() + ": ConfigMap " + ns + "/" + name + " not found");
    }
    Path dir = podVolume(ctx, v);
    Files.createDirectories(dir);
    Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
    for (Map.Entry<String, String> e : data.entrySet()) {
      writeAtomically(dir.resolve(e.getKey()), e.getValue());
    }
    return dir;
  }

  /** The directory of one of the pod's volumes on the simulated node. */
  private static Path podVolume(AgentContext ctx, Volume v) {
    return ctx.dirs()
        .root()
        .resolve("volumes")
        .resolve(ctx.container().pod().getMetadata().getUid())
        .resolve(v.getName());
  }

  /** Writes through a temp file and a rename, so readers never see half a file. */
  static void writeAtomically(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName(), ".tmp");
    try {
      Files.writeString(tmp, content, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static java.util.List<VolumeMount> mounts(AgentContext ctx) {
    var m = ctx.container().container().getVolumeMounts();
    return m == null ? java.util.List.of() : m;
  }

  private static Volume volume(AgentContext ctx, String name) {
    var vs = ctx.container().pod().getSpec().getVolumes();
    if (vs == null) {
      return null;
    }
    return vs.stream().filter(v -> name.equals(v.getName())).findFirst().orElse(null);
  }

  private static String trimSlash(String p) {
    return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }
}

package io.gpuoperator.node.dra;

import io.gpuoperator.config.GoDuration;
import io.gpuoperator.kubelet.dra.DraConstants;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Everything the DRA plugin acts on, from its environment (flags are merged into it first, so a
 * flag wins). Every variable is read here once, with its default; a bad value is an error naming
 * the variable and what it accepts.
 *
 * @param nodeName this node ({@code NODE_NAME}, required): the pool and {@code spec.nodeName}
 * @param registrarDir the kubelet's plugin-registration directory
 * @param pluginsDir the kubelet's plugin directory; the plugin's socket and checkpoint go into
 *     {@code <pluginsDir>/gpu.nvidia.com/}
 * @param cdiRoot where the claims' CDI specs go
 * @param driverRoot where the driver's files are on the host ({@code nvidia-smi} for time-slices)
 * @param devRoot where the device nodes are on the host
 * @param mpsRoot where each MPS claim gets a pipe directory on the host
 * @param partitionable whether to publish MIG placements as partitionable devices
 * @param rescanInterval how often the GPUs are read again for changes (MIG layout, lost GPUs)
 * @param healthRecovery quiet time after which a device withdrawn for an XID is offered again
 */
public record DraPluginSettings(
    String nodeName,
    Path registrarDir,
    Path pluginsDir,
    Path cdiRoot,
    Path driverRoot,
    Path devRoot,
    Path mpsRoot,
    Partitionable partitionable,
    Duration rescanInterval,
    Duration healthRecovery) {

  /** Whether MIG placements are published as partitionable devices. */
  public enum Partitionable {
    /** When the server is Kubernetes 1.36 or newer with {@code resource.k8s.io/v1}. */
    AUTO,
    TRUE,
    FALSE
  }

  /** The plugin's own directory: its socket and checkpoint. */
  public Path pluginDir() {
    return pluginsDir.resolve(DraNames.DRIVER);
  }

  /** The DRA service socket. */
  public Path pluginSocket() {
    return pluginDir().resolve(DraNames.PLUGIN_SOCKET);
  }

  /** The registration socket the kubelet's plugin watcher finds. */
  public Path registrationSocket() {
    return registrarDir.resolve(DraNames.REGISTRATION_SOCKET);
  }

  /** The checkpoint file. */
  public Path checkpointFile() {
    return pluginDir().resolve(DraNames.CHECKPOINT_FILE);
  }

  /** Reads the settings from an environment. */
  public static DraPluginSettings fromEnv(Map<String, String> env) {
    String node = env.get(DraNames.ENV_NODE_NAME);
    if (node == null || node.isBlank()) {
      throw new IllegalArgumentException(
          DraNames.ENV_NODE_NAME + ": required (the node whose GPUs this plugin publishes)");
    }
    String kubelet = DraConstants.KUBELET_ROOT + "/";
    Path driverRoot = path(env, DraNames.ENV_NVIDIA_DRIVER_ROOT, "/");
    return new DraPluginSettings(
        node,
        path(env, DraNames.ENV_REGISTRAR_DIR, kubelet + DraConstants.PLUGINS_REGISTRY_DIR),
        path(env, DraNames.ENV_PLUGINS_DIR, kubelet + DraConstants.PLUGINS_DIR),
        path(env, DraNames.ENV_CDI_ROOT, "/var/run/cdi"),
        driverRoot,
        path(env, DraNames.ENV_NVIDIA_DEV_ROOT, driverRoot.toString()),
        path(env, DraNames.ENV_MPS_ROOT, "/run/nvidia/mps"),
        partitionable(env.getOrDefault(DraNames.ENV_PARTITIONABLE_DEVICES, "auto")),
        duration(env, DraNames.ENV_RESCAN_INTERVAL, "10s"),
        // The device plugin's variable (DevicePluginSettings.HEALTH_RECOVERY_PERIOD), same meaning.
        duration(env, "DP_HEALTH_RECOVERY_PERIOD", "5m"));
  }

  private static Partitionable partitionable(String value) {
    try {
      return Partitionable.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          DraNames.ENV_PARTITIONABLE_DEVICES
              + ": expected auto, true or false, got \""
              + value
              + "\"");
    }
  }

  private static Path path(Map<String, String> env, String name, String fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      v = fallback;
    }
    Path p = Path.of(v);
    if (!p.isAbsolute()) {
      throw new IllegalArgumentException(name + ": expected an absolute path, got \"" + v + "\"");
    }
    return p;
  }

  private static Duration duration(Map<String, String> env, String name, String fallback) {
    String v = env.getOrDefault(name, fallback);
    try {
      return GoDuration.parse(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.DevicePluginSpec;
import io.gpuoperator.operator.spec.Section;

/**
 * The original's device-plugin config handling, shared by the device plugin, the MPS control daemon
 * and feature discovery (all key off {@code devicePlugin.config}): without a config name the {@code
 * config-manager-init} and {@code config-manager} containers are removed; with one, the ConfigMap
 * is mounted at {@code /available-configs}, the init container links this node's entry (label
 * {@code nvidia.com/device-plugin.config}, else the default) to {@code /config/config.yaml}, and
 * the sidecar follows label changes and signals the main process.
 */
final class ConfigManager {
  static final String INIT = "config-manager-init";
  static final String SIDECAR = "config-manager";
  static final String CONFIG_VOLUME = "config";
  static final String CONFIG_FILE = "/config/config.yaml";
  static final String AVAILABLE = "/available-configs";

  private ConfigManager() {}

  /** The policy's device-plugin ConfigMap name, or null. */
  static String configName(RenderContext ctx) {
    DevicePluginSpec d = ctx.spec().devicePlugin;
    return d == null || d.config == null || RenderContext.blank(d.config.name)
        ? null
        : d.config.name.trim();
  }

  /** Whether the policy names a device-plugin config. */
  static boolean configured(RenderContext ctx) {
    return configName(ctx) != null;
  }

  /**
   * Applies the config handling to a DaemonSet whose main container is {@code main}; {@code
   * initResources} are the init container's resources (feature discovery's own, else the device
   * plugin's).
   */
  static void apply(
      DaemonSet ds, Container main, RenderContext ctx, ResourceRequirements initResources) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    String cm = configName(ctx);
    if (cm == null) {
      DaemonSets.remove(pod, INIT);
      DaemonSets.remove(pod, SIDECAR);
      return;
    }
    DaemonSets.setEnv(main, "CONFIG_FILE", CONFIG_FILE);
    mounts(main, cm);
    if (!Boolean.TRUE.equals(pod.getHostPID())) {
      pod.setShareProcessNamespace(true);
    }
    DaemonSets.addVolume(
        pod,
        new VolumeBuilder().withName(cm).withNewConfigMap().withName(cm).endConfigMap().build());
    DaemonSets.addVolume(
        pod, new VolumeBuilder().withName(CONFIG_VOLUME).withNewEmptyDir().endEmptyDir().build());
    DevicePluginSpec d = ctx.spec().devicePlugin;
    String def = d.config.defaultEntry == null ? "" : d.config.defaultEntry.trim();
    for (String name : new String[] {INIT, SIDECAR}) {
      Container c = DaemonSets.find(pod, name);
      if (c == null) {
        continue;
      }
      // config-manager is a program of NVIDIA's device-plugin image.
      c.setImage(ctx.nvidiaImage(Section.DEVICE_PLUGIN));
      String pull = RenderContext.pullPolicyIfSet(d);
      if (pull != null) {
        c.setImagePullPolicy(pull);
      }
      if (name.equals(INIT) && initResources != null) {
        c.setResources(initResources);
      }
      DaemonSets.setEnv(c, "DEFAULT_CONFIG", def);
      DaemonSets.setEnv(c, "FALLBACK_STRATEGIES", "empty");
      mounts(c, cm);
    }
  }

  private static void mounts(Container c, String cm) {
    DaemonSets.mount(
        c, new VolumeMountBuilder().withName(CONFIG_VOLUME).withMountPath("/config").build());
    DaemonSets.mount(c, new VolumeMountBuilder().withName(cm).withMountPath(AVAILABLE).build());
  }
}

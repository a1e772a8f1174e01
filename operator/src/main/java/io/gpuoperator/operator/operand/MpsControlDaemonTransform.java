package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.DevicePluginSpec;
import io.gpuoperator.operator.spec.Section;

/**
 * NVIDIA's MPS control daemon ({@code nvidia-device-plugin-mps-control-daemon}), which runs the
 * device plugin's image on nodes where feature discovery reports MPS sharing ({@code
 * nvidia.com/mps.capable=true}). As in the original, the device plugin section's image, pull policy
 * and resources apply, but not its env and args; {@code MPS_ROOT} is not set.
 */
public final class MpsControlDaemonTransform implements MainContainerTransform {
  static final String CONTAINER = "mps-control-daemon-ctr";
  static final String MOUNTS = "mps-control-daemon-mounts";

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.NONE;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    DevicePluginSpec spec = ctx.spec().devicePlugin;
    Container mounts = DaemonSets.container(pod, MOUNTS);
    mounts.setImage(c.getImage());
    mounts.setImagePullPolicy(c.getImagePullPolicy());
    if (spec != null && spec.resources != null) {
      mounts.setResources(spec.resources);
    }
    ConfigManager.apply(ds, c, ctx, spec == null ? null : spec.resources);
    DaemonSets.migEnv(c, ctx.migStrategyOrNull());
    DevicePluginTransform.mpsVolumes(pod, DevicePluginTransform.mpsRoot(ctx));
  }

  /** Deployed with the device plugin. */
  static boolean enabled(io.gpuoperator.api.v1.ClusterPolicySpec spec) {
    return Section.DEVICE_PLUGIN.enabled(spec);
  }
}

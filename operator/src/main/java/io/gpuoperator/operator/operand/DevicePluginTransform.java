package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.DevicePluginSpec;
import io.gpuoperator.operator.spec.Section;

/**
 * NVIDIA's device plugin ({@code nvidia-device-plugin-daemonset}) under the original's contract:
 * the entrypoint ConfigMap waits for the validated driver; GPUDirect, config, MIG, CDI and MPS
 * settings become env in the original's order, the policy's env last.
 */
public final class DevicePluginTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-device-plugin";
  static final String DEFAULT_MPS_ROOT = "/run/nvidia/mps";

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.AFTER;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    if (Section.GDS.enabled(ctx.spec())) {
      DaemonSets.setEnv(c, "GDS_ENABLED", "true");
      DaemonSets.setEnv(c, "MOFED_ENABLED", "true");
    }
    if (Section.GDRCOPY.enabled(ctx.spec())) {
      DaemonSets.setEnv(c, "GDRCOPY_ENABLED", "true");
    }
    DevicePluginSpec spec = ctx.spec().devicePlugin;
    ConfigManager.apply(ds, c, ctx, spec == null ? null : spec.resources);
    DaemonSets.migEnv(c, ctx.migStrategyOrNull());
    cdiEnv(c, ctx);
    String root = mpsRoot(ctx);
    if (!root.equals(DEFAULT_MPS_ROOT)) {
      DaemonSets.setEnv(c, "MPS_ROOT", root);
    }
    mpsVolumes(pod, root);
  }

  /** The device plugin's CDI env, with the toolkit's CDI hook when the toolkit is deployed. */
  static void cdiEnv(Container c, RenderContext ctx) {
    if (!ctx.cdiEnabled()) {
      return;
    }
    DaemonSets.setEnv(c, "DEVICE_LIST_STRATEGY", "cdi-annotations,cdi-cri");
    DaemonSets.setEnv(c, "CDI_ENABLED", "true");
    DaemonSets.setEnv(c, "CDI_ANNOTATION_PREFIX", "cdi.k8s.io/");
    if (Section.TOOLKIT.enabled(ctx.spec())) {
      DaemonSets.setEnv(c, "NVIDIA_CDI_HOOK_PATH", ContainerToolkitTransform.cdiHookPath(ctx));
    }
  }

  /** {@code devicePlugin.mps.root}, default /run/nvidia/mps. */
  static String mpsRoot(RenderContext ctx) {
    DevicePluginSpec spec = ctx.spec().devicePlugin;
    return spec != null && spec.mps != null && !RenderContext.blank(spec.mps.root)
        ? spec.mps.root.trim()
        : DEFAULT_MPS_ROOT;
  }

  /** The MPS root and its shm directory on the host. */
  static void mpsVolumes(PodSpec pod, String root) {
    var mpsRoot = DaemonSets.volume(pod, "mps-root");
    if (mpsRoot != null) {
      mpsRoot.getHostPath().setPath(root);
    }
    var shm = DaemonSets.volume(pod, "mps-shm");
    if (shm != null) {
      shm.getHostPath().setPath(root + "/shm");
    }
  }
}

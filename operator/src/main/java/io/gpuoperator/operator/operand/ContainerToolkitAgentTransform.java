package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * Our toolkit agent ({@code gpu-operator toolkit}) in {@code nvidia-container-toolkit-daemonset}:
 * configures the runtime detected on the nodes with a drop-in (containerd, CRI-O), writes the CDI
 * spec, and reverts both when its pod stops. It reads the original's env, so the runtime's files
 * are mounted exactly as under NVIDIA's image; CRI-O always gets the drop-in (our agent has no OCI
 * hook mode).
 */
public final class ContainerToolkitAgentTransform implements MainContainerTransform {
  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    ContainerToolkitTransform.installDir(pod, c, ctx);
    DaemonSets.setEnv(c, "CDI_ENABLED", Boolean.toString(ctx.cdiEnabled()));
    if (ctx.cdiEnabled()) {
      // As the original: with CDI the device plugin asks for devices by CDI name, not runtime.
      DaemonSets.setEnv(c, "NVIDIA_RUNTIME_SET_AS_DEFAULT", "false");
    }
    // The policy's env comes before the runtime settings: it may name the runtime's host files.
    DaemonSets.mergeEnv(c, ctx.spec().toolkit);
    ContainerToolkitTransform.runtimeFiles(pod, c, ctx);
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;

/**
 * Our feature discovery ({@code gpu-operator feature-discovery}) in the {@code
 * gpu-feature-discovery} DaemonSet: labels its node with the GPUs' model, memory, MIG and sharing
 * facts. It reads the node's device-plugin config, which NVIDIA's config-manager picks, so that the
 * sharing labels match what the device plugin advertises.
 */
public final class GpuFeatureDiscoveryAgentTransform implements Transform {
  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (object instanceof DaemonSet ds) {
      Container c =
          DaemonSets.container(
              ds.getSpec().getTemplate().getSpec(), GpuFeatureDiscoveryTransform.CONTAINER);
      DaemonSets.setEnv(c, "GFD_MIG_STRATEGY", ctx.migStrategy());
      DaemonSets.setEnv(c, "MIG_STRATEGY", ctx.migStrategy());
      ComponentSpec gfd = ctx.spec().gfd;
      ConfigManager.apply(ds, c, ctx, gfd == null ? null : gfd.resources);
    }
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * GPU feature discovery {@code gpu-feature-discovery}: our image's {@code feature-discovery}
 * subcommand labels nodes with GPU model, memory, MIG capability.
 */
public final class GpuFeatureDiscoveryTransform implements Transform {
  static final String CONTAINER = "gpu-feature-discovery";

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (object instanceof DaemonSet ds) {
      Container c = DaemonSets.container(ds.getSpec().getTemplate().getSpec(), CONTAINER);
      DaemonSets.setEnv(c, "GFD_MIG_STRATEGY", ctx.migStrategy());
      DaemonSets.setEnv(c, "MIG_STRATEGY", ctx.migStrategy());
    }
  }
}

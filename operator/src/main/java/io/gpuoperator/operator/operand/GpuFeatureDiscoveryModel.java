package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * GPU feature discovery {@code gpu-feature-discovery}: our image's {@code feature-discovery}
 * subcommand labels nodes with GPU model, memory, MIG capability.
 */
public final class GpuFeatureDiscoveryModel extends ManifestOperandModel {
  static final String CONTAINER = "gpu-feature-discovery";

  public GpuFeatureDiscoveryModel() {
    super(OperandNames.GPU_FEATURE_DISCOVERY);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.gfd;
  }

  @Override
  protected String path() {
    return "spec.gfd";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  @Override
  protected boolean usesRuntimeClass() {
    return true;
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (object instanceof DaemonSet ds) {
      Container c = DaemonSets.container(ds.getSpec().getTemplate().getSpec(), CONTAINER);
      env(c, "GFD_MIG_STRATEGY", ctx.migStrategy());
      env(c, "MIG_STRATEGY", ctx.migStrategy());
    }
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;

/**
 * NVIDIA's GPU feature discovery ({@code gpu-feature-discovery}) under the original's contract: it
 * publishes labels as NFD NodeFeature objects; the policy's env comes before the device-plugin
 * config and MIG settings, which win.
 */
public final class GpuFeatureDiscoveryTransform implements MainContainerTransform {
  static final String CONTAINER = "gpu-feature-discovery";

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    ComponentSpec gfd = ctx.spec().gfd;
    DaemonSets.mergeEnv(c, gfd);
    ConfigManager.apply(ds, c, ctx, gfd == null ? null : gfd.resources);
    DaemonSets.migEnv(c, ctx.migStrategyOrNull());
  }
}

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
 *
 * <p>Where NFD runs the labels are published as NFD NodeFeature objects (as NVIDIA's image does);
 * without NFD the agent patches its own Node's labels (the chart's ClusterRole allows both, see
 * {@link OperandRbac}).
 */
public final class GpuFeatureDiscoveryAgentTransform implements Transform {
  /** The agent's output setting and the two values the operator chooses between. */
  static final String OUTPUT_ENV = "GFD_OUTPUT";

  static final String OUTPUT_NODE_FEATURE = "node-feature";
  static final String OUTPUT_NODE_LABELS = "node-labels";

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    boolean nfd = ctx.facts().nfdLabelsPresent();
    if (object instanceof DaemonSet ds) {
      Container c =
          DaemonSets.container(
              ds.getSpec().getTemplate().getSpec(), GpuFeatureDiscoveryTransform.CONTAINER);
      DaemonSets.setEnv(c, "GFD_MIG_STRATEGY", ctx.migStrategy());
      DaemonSets.setEnv(c, "MIG_STRATEGY", ctx.migStrategy());
      DaemonSets.setEnv(c, OUTPUT_ENV, nfd ? OUTPUT_NODE_FEATURE : OUTPUT_NODE_LABELS);
      ComponentSpec gfd = ctx.spec().gfd;
      ConfigManager.apply(ds, c, ctx, gfd == null ? null : gfd.resources);
    }
  }
}

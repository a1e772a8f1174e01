package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * GPU feature discovery {@code gpu-feature-discovery}: our image's {@code feature-discovery}
 * subcommand labels nodes with GPU model, memory, MIG capability.
 */
public final class GpuFeatureDiscoveryModel extends ManifestOperandModel {
  static final String CONTAINER = "gpu-feature-discovery";

  /** The agent's output setting and the two values the operator chooses between. */
  static final String OUTPUT_ENV = "GFD_OUTPUT";

  static final String OUTPUT_NODE_FEATURE = "node-feature";
  static final String OUTPUT_NODE_LABELS = "node-labels";

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

  /**
   * Where the labels go decides the Node verbs: where NFD runs they are published as NFD
   * NodeFeature objects (the original's default) and the ClusterRole only reads Nodes, as the
   * original's; without NFD the agent patches its own Node's labels, and only then may it patch
   * Nodes.
   */
  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    boolean nfd = ctx.facts().nfdLabelsPresent();
    if (object instanceof DaemonSet ds) {
      Container c = DaemonSets.container(ds.getSpec().getTemplate().getSpec(), CONTAINER);
      env(c, "GFD_MIG_STRATEGY", ctx.migStrategy());
      env(c, "MIG_STRATEGY", ctx.migStrategy());
      env(c, OUTPUT_ENV, nfd ? OUTPUT_NODE_FEATURE : OUTPUT_NODE_LABELS);
    }
    if (object instanceof ClusterRole role && !nfd) {
      role.getRules().stream()
          .filter(r -> r.getResources().contains("nodes"))
          .forEach(r -> r.getVerbs().add("patch"));
    }
  }
}

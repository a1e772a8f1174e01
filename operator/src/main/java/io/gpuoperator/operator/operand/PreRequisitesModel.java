package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;

/**
 * The RuntimeClasses {@code nvidia} (named after {@code operator.runtimeClass}), {@code nvidia-cdi}
 * and {@code nvidia-legacy}; not deployed when the CDI NRI plugin replaces runtime classes.
 */
public final class PreRequisitesModel extends ManifestOperandModel {
  static final String DEFAULT_RUNTIME_CLASS = "nvidia";
  private static final java.util.Set<String> FIXED =
      java.util.Set.of("nvidia-cdi", "nvidia-legacy");

  public PreRequisitesModel() {
    super(OperandNames.PRE_REQUISITES);
  }

  @Override
  public boolean enabled(ClusterPolicy policy, ClusterFacts facts) {
    var spec = policy == null ? null : policy.getSpec();
    return spec == null || spec.cdi == null || !Boolean.TRUE.equals(spec.cdi.nriPluginEnabled);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return null;
  }

  @Override
  protected String path() {
    return "spec.operator";
  }

  @Override
  protected String mainContainer() {
    return null;
  }

  /** A custom runtime class that is one of the fixed ones must not be rendered twice. */
  @Override
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    return !(DEFAULT_RUNTIME_CLASS.equals(object.getMetadata().getName())
        && !DEFAULT_RUNTIME_CLASS.equals(ctx.runtimeClass())
        && FIXED.contains(ctx.runtimeClass()));
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (object instanceof RuntimeClass rc
        && DEFAULT_RUNTIME_CLASS.equals(rc.getMetadata().getName())) {
      rc.getMetadata().setName(ctx.runtimeClass());
      rc.setHandler(ctx.runtimeClass());
    }
  }
}

package io.gpuoperator.operator.operand;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;

/** The inputs of one rendering pass, with the policy's spec never null. */
public record RenderContext(
    ClusterPolicy policy, ClusterPolicySpec spec, ClusterFacts facts, OperatorConfig config) {

  static RenderContext of(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    return new RenderContext(policy, specOf(policy), facts, config);
  }

  /** The policy's spec, empty (all defaults) when the policy has none. */
  static ClusterPolicySpec specOf(ClusterPolicy policy) {
    return policy == null || policy.getSpec() == null ? new ClusterPolicySpec() : policy.getSpec();
  }

  /** Whether the CDI NRI plugin replaces RuntimeClasses ({@code cdi.nriPluginEnabled}). */
  public boolean nriPlugin() {
    return spec.cdi != null && Boolean.TRUE.equals(spec.cdi.nriPluginEnabled);
  }

  /** The namespace operands run in. */
  public String namespace() {
    return config.namespace();
  }

  /** Whether CDI is on (the original's default: on unless set to false). */
  public boolean cdiEnabled() {
    return spec.cdi == null || !Boolean.FALSE.equals(spec.cdi.enabled);
  }

  /** The MIG strategy value ("none", "single", "mixed"); the original's default is single. */
  public String migStrategy() {
    return spec.mig == null || spec.mig.strategy == null ? "single" : spec.mig.strategy.value();
  }

  /** The RuntimeClass operands that use the GPU run with. */
  public String runtimeClass() {
    return spec.operator == null
            || spec.operator.runtimeClass == null
            || spec.operator.runtimeClass.isBlank()
        ? "nvidia"
        : spec.operator.runtimeClass.trim();
  }
}

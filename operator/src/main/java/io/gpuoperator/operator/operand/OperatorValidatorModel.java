package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;

/**
 * The validator DaemonSet {@code nvidia-operator-validator}: init containers validate driver,
 * toolkit, CUDA and device plugin in that order and leave marker files the other operands wait for.
 * Always deployed, as in the original.
 */
public final class OperatorValidatorModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-operator-validator";

  public OperatorValidatorModel() {
    super(OperandNames.OPERATOR_VALIDATOR);
  }

  @Override
  public boolean enabled(ClusterPolicy policy, ClusterFacts facts) {
    return true;
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.validator;
  }

  @Override
  protected String path() {
    return "spec.validator";
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
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    env(DaemonSets.container(pod, "plugin-validation"), "MIG_STRATEGY", ctx.migStrategy());
    String cdi = String.valueOf(ctx.cdiEnabled());
    String runtime =
        ctx.facts().containerRuntime() == null ? "containerd" : ctx.facts().containerRuntime();
    Container toolkit = DaemonSets.container(pod, "toolkit-validation");
    env(toolkit, "CDI_ENABLED", cdi);
    env(toolkit, "RUNTIME", runtime);
    env(DaemonSets.container(pod, "cuda-validation"), "CDI_ENABLED", cdi);
    if (!new DevicePluginModel().enabled(ctx.policy(), ctx.facts())) {
      // Without a device plugin no node ever advertises nvidia.com/gpu: the step would wait
      // forever and keep the validator (and everything waiting on it) from becoming ready.
      pod.getInitContainers().removeIf(c -> c.getName().equals("plugin-validation"));
    }
  }
}

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
    env(DaemonSets.container(pod, "toolkit-validation"), "CDI_ENABLED", cdi);
    env(DaemonSets.container(pod, "cuda-validation"), "CDI_ENABLED", cdi);
    // The cuda and plugin validations start workload pods with the validator's own image.
    for (String step : new String[] {"cuda-validation", "plugin-validation"}) {
      Container c = DaemonSets.container(pod, step);
      env(c, "VALIDATOR_IMAGE", c.getImage());
      env(c, "VALIDATOR_IMAGE_PULL_POLICY", c.getImagePullPolicy());
    }
    boolean driver = new DriverModel().enabled(ctx.policy(), ctx.facts());
    // Without a driver container the validator must find the host's driver instead of waiting.
    env(DaemonSets.container(pod, "driver-validation"), "DRIVER_CONTAINER", String.valueOf(driver));
    boolean plugin = new DevicePluginModel().enabled(ctx.policy(), ctx.facts());
    if (!plugin) {
      env(DaemonSets.container(pod, "plugin-validation"), "SKIP_VALIDATION", "true");
    }
  }
}

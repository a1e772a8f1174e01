package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.operator.spec.Section;

/**
 * The validator DaemonSet {@code nvidia-operator-validator}: init containers validate driver,
 * toolkit, CUDA and device plugin in that order and leave marker files the other operands wait for.
 * Always deployed, as in the original.
 */
public final class OperatorValidatorTransform implements Transform {
  static final String CONTAINER = "nvidia-operator-validator";

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    DaemonSets.setEnv(
        DaemonSets.container(pod, "plugin-validation"), "MIG_STRATEGY", ctx.migStrategy());
    String cdi = String.valueOf(ctx.cdiEnabled());
    String runtime =
        ctx.facts().containerRuntime() == null ? "containerd" : ctx.facts().containerRuntime();
    Container toolkit = DaemonSets.container(pod, "toolkit-validation");
    DaemonSets.setEnv(toolkit, "CDI_ENABLED", cdi);
    DaemonSets.setEnv(toolkit, "RUNTIME", runtime);
    DaemonSets.setEnv(DaemonSets.container(pod, "cuda-validation"), "CDI_ENABLED", cdi);
    if (!Section.DEVICE_PLUGIN.enabled(ctx.spec())) {
      // Without a device plugin no node ever advertises nvidia.com/gpu: the step would wait
      // forever and keep the validator (and everything waiting on it) from becoming ready.
      pod.getInitContainers().removeIf(c -> c.getName().equals("plugin-validation"));
    }
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * Our validator ({@code gpu-operator validator}) in the {@code nvidia-operator-validator}
 * DaemonSet: the same steps and marker files as the original's; the toolkit step checks the runtime
 * configuration and CDI spec the toolkit wrote, so it learns the runtime and CDI mode.
 */
public final class OperatorValidatorAgentTransform implements Transform {
  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    ManifestRenderer.runAsRoot(DaemonSets.container(pod, OperatorValidatorTransform.CONTAINER));
    OperatorValidatorTransform.removePluginStepWithoutPlugin(pod, ctx);
    if (DaemonSets.find(pod, OperatorValidatorTransform.PLUGIN) != null) {
      DaemonSets.setEnv(
          DaemonSets.container(pod, OperatorValidatorTransform.PLUGIN),
          "MIG_STRATEGY",
          ctx.migStrategy());
    }
    String cdi = String.valueOf(ctx.cdiEnabled());
    Container toolkit = DaemonSets.container(pod, "toolkit-validation");
    DaemonSets.setEnv(toolkit, "CDI_ENABLED", cdi);
    DaemonSets.setEnv(toolkit, "RUNTIME", ctx.runtime());
    if (!ctx.nriPlugin()) {
      // The step reads what the toolkit wrote: the runtime's config and the CDI specs.
      ContainerToolkitTransform.runtimeFilesForReading(pod, toolkit, ctx);
    }
    DaemonSets.setEnv(DaemonSets.container(pod, "cuda-validation"), "CDI_ENABLED", cdi);
    OperatorValidatorTransform.nriOnToolkitStep(ds, ctx);
  }
}

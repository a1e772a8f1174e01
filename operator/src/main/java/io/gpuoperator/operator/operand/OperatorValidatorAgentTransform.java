package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.node.validator.ValidatorConfig;

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
    // The plugin step needs no MIG strategy: it takes whichever GPU resource the node advertises.
    Container toolkit = DaemonSets.container(pod, "toolkit-validation");
    DaemonSets.setEnv(toolkit, ValidatorConfig.CDI_ENABLED, ctx.cdiEnabled());
    DaemonSets.setEnv(toolkit, ValidatorConfig.RUNTIME, ctx.runtime());
    if (!ctx.nriPlugin()) {
      // The step reads what the toolkit wrote: the runtime's config and the CDI specs.
      ContainerToolkitTransform.runtimeFilesForReading(pod, toolkit, ctx);
    }
    DaemonSets.setEnv(
        DaemonSets.container(pod, "cuda-validation"),
        ValidatorConfig.CDI_ENABLED,
        ctx.cdiEnabled());
    OperatorValidatorTransform.nriOnToolkitStep(ds, ctx);
  }
}

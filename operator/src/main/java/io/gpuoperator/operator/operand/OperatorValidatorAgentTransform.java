package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.node.validator.ValidatorConfig;
import io.gpuoperator.operator.spec.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Our validator ({@code gpu-operator validator}) in the {@code nvidia-operator-validator}
 * DaemonSet: the same steps and marker files as the original's; the toolkit step checks the runtime
 * configuration and CDI spec the toolkit wrote, so it learns the runtime and CDI mode.
 */
public final class OperatorValidatorAgentTransform implements Transform {
  static final String DRA = "dra-validation";

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
    draStep(pod, ctx);
  }

  /**
   * With the DRA driver on, a last step checks that the DRA plugin published the node's GPUs (the
   * original validates DRA with a DaemonSet of its own, from its GPUCluster; NVIDIA's validator
   * image has no such step). It skips nodes where the DRA driver does not run. Built from the CUDA
   * step: same image, pull settings and identity, only the variables the step reads.
   */
  static void draStep(PodSpec pod, RenderContext ctx) {
    if (!Section.DRA_DRIVER.enabled(ctx.spec())) {
      return;
    }
    Container cuda = DaemonSets.container(pod, "cuda-validation");
    Container dra = new ContainerBuilder(cuda).build();
    dra.setName(DRA);
    dra.setArgs(new ArrayList<>(List.of("validator", "--component", "dra")));
    Set<String> kept = Set.of("WITH_WAIT", "NODE_NAME", "OPERATOR_NAMESPACE");
    dra.setEnv(
        new ArrayList<>(cuda.getEnv().stream().filter(e -> kept.contains(e.getName())).toList()));
    DaemonSets.setEnv(dra, "COMPONENT", "dra");
    pod.getInitContainers().add(dra);
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ValidatorSpec;
import io.gpuoperator.operator.spec.Section;
import java.util.List;

/**
 * NVIDIA's validator ({@code nvidia-operator-validator}) under the original's contract: init
 * containers validate driver, toolkit, CUDA and device plugin in that order and leave marker files
 * the other operands wait for; the CUDA and plugin steps learn the image, pull settings and
 * RuntimeClass their workload pods must use. Always deployed, as in the original.
 */
public final class OperatorValidatorTransform implements Transform {
  static final String CONTAINER = "nvidia-operator-validator";
  static final String PLUGIN = "plugin-validation";

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    ManifestRenderer.runAsRoot(DaemonSets.container(pod, CONTAINER));
    removePluginStepWithoutPlugin(pod, ctx);
    if (ctx.migStrategyOrNull() != null && DaemonSets.find(pod, PLUGIN) != null) {
      DaemonSets.setEnv(DaemonSets.container(pod, PLUGIN), "MIG_STRATEGY", ctx.migStrategyOrNull());
    }
    ValidatorSpec v = ctx.spec().validator;
    for (String step : List.of("cuda-validation", PLUGIN)) {
      Container c = DaemonSets.find(pod, step);
      if (c == null) {
        continue;
      }
      DaemonSets.setEnv(c, "VALIDATOR_IMAGE", ctx.rendering().image());
      DaemonSets.setEnv(
          c,
          "VALIDATOR_IMAGE_PULL_POLICY",
          v == null || v.imagePullPolicy == null ? "" : v.imagePullPolicy);
      if (v != null && v.imagePullSecrets != null && !v.imagePullSecrets.isEmpty()) {
        DaemonSets.setEnv(c, "VALIDATOR_IMAGE_PULL_SECRETS", String.join(",", v.imagePullSecrets));
      }
      if (pod.getRuntimeClassName() != null) {
        DaemonSets.setEnv(c, "VALIDATOR_RUNTIME_CLASS", pod.getRuntimeClassName());
      }
    }
    nriOnToolkitStep(ds, ctx);
  }

  /**
   * Without a device plugin no node ever advertises a GPU resource: the plugin step would wait
   * forever and keep everything waiting on the validator from becoming ready.
   */
  static void removePluginStepWithoutPlugin(PodSpec pod, RenderContext ctx) {
    if (!Section.DEVICE_PLUGIN.enabled(ctx.spec())) {
      pod.getInitContainers().removeIf(c -> c.getName().equals(PLUGIN));
    }
  }

  /** With the CDI NRI plugin, the step that needs the GPUs is the toolkit validation. */
  static void nriOnToolkitStep(DaemonSet ds, RenderContext ctx) {
    var annotations = ds.getSpec().getTemplate().getMetadata().getAnnotations();
    if (!ctx.nriPlugin() || annotations == null) {
      return;
    }
    annotations.remove(DaemonSets.NRI_ANNOTATION_PREFIX + CONTAINER);
    annotations.put(
        DaemonSets.NRI_ANNOTATION_PREFIX + "toolkit-validation", DaemonSets.NRI_ALL_GPUS);
  }
}

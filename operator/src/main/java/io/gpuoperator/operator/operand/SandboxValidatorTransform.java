package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.node.validator.ValidatorEnv;
import io.gpuoperator.operator.spec.Section;
import java.util.List;

/**
 * The original's sandbox validator (operand-contracts 3.13.3), on the validator's image like the
 * operator validator: its cc-manager step only where {@code ccManager.enabled}, and the steps that
 * decide by the node's workload learn the policy's default workload ({@code
 * DEFAULT_GPU_WORKLOAD_CONFIG}) for nodes without the label. Each step's {@code
 * validator.<step>.env} follows (the common rendering's).
 */
final class SandboxValidatorTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-sandbox-validator";
  static final String CC_MANAGER_STEP = "cc-manager-validation";

  /** The steps that read the node's workload. */
  static final List<String> WORKLOAD_STEPS =
      List.of("vfio-pci-validation", "vgpu-manager-validation", "vgpu-devices-validation");

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx) {
    if (!Section.CC_MANAGER.enabled(ctx.spec())) {
      DaemonSets.remove(pod, CC_MANAGER_STEP);
    }
    String workload = SandboxWorkloads.defaultWorkload(ctx.spec());
    for (String step : WORKLOAD_STEPS) {
      DaemonSets.setEnv(
          DaemonSets.container(pod, step), ValidatorEnv.DEFAULT_GPU_WORKLOAD_CONFIG, workload);
    }
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * NVIDIA's CC manager under the original's contract (operand-contracts 3.13.7): the mode it sets on
 * capable GPUs, {@code DEFAULT_CC_MODE} from {@code ccManager.defaultMode} where given (the image's
 * own default otherwise), before the section's env.
 */
final class CcManagerTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-cc-manager";

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx) {
    var cc = ctx.spec().ccManager;
    if (cc != null && !RenderContext.blank(cc.defaultMode)) {
      DaemonSets.setEnv(main, "DEFAULT_CC_MODE", cc.defaultMode.trim());
    }
  }
}

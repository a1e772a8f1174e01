package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;

/**
 * The RuntimeClasses {@code nvidia} (named after {@code operator.runtimeClass}), {@code nvidia-cdi}
 * and {@code nvidia-legacy}; not deployed when the CDI NRI plugin replaces runtime classes.
 */
public final class PreRequisitesTransform implements Transform {
  static final String DEFAULT_RUNTIME_CLASS = "nvidia";
  private static final java.util.Set<String> FIXED =
      java.util.Set.of("nvidia-cdi", "nvidia-legacy");

  /** A custom runtime class that is one of the fixed ones must not be rendered twice. */
  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    return !(DEFAULT_RUNTIME_CLASS.equals(object.getMetadata().getName())
        && !DEFAULT_RUNTIME_CLASS.equals(ctx.runtimeClass())
        && FIXED.contains(ctx.runtimeClass()));
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (object instanceof RuntimeClass rc
        && DEFAULT_RUNTIME_CLASS.equals(rc.getMetadata().getName())) {
      rc.getMetadata().setName(ctx.runtimeClass());
      rc.setHandler(ctx.runtimeClass());
    }
  }
}

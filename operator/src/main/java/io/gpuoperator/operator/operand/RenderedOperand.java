package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;

/**
 * One operand as the policy wants it: its objects when enabled, or nothing (and {@code enabled}
 * false) when the reconciler must delete what exists; and which rendering it got.
 */
public record RenderedOperand(
    String name, boolean enabled, List<HasMetadata> objects, Rendering rendering) {

  public RenderedOperand {
    rendering = rendering == null ? Rendering.NONE : rendering;
  }

  /** An operand without a rendering choice (disabled, or built by a test). */
  public RenderedOperand(String name, boolean enabled, List<HasMetadata> objects) {
    this(name, enabled, objects, Rendering.NONE);
  }
}

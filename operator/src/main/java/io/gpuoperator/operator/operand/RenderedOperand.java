package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;

/**
 * One operand as the policy wants it: its objects when enabled, or nothing (and {@code enabled}
 * false) when the reconciler must delete what exists; and which rendering it got.
 *
 * @param hostedIn in node-agents mode, the {@code nvidia-node-agents} DaemonSet that runs this
 *     operand's agent instead of its own DaemonSet (its readiness is this operand's); else null
 */
public record RenderedOperand(
    String name,
    boolean enabled,
    List<HasMetadata> objects,
    Rendering rendering,
    DaemonSet hostedIn) {

  public RenderedOperand {
    rendering = rendering == null ? Rendering.NONE : rendering;
  }

  /** An operand in its own DaemonSets (or none). */
  public RenderedOperand(
      String name, boolean enabled, List<HasMetadata> objects, Rendering rendering) {
    this(name, enabled, objects, rendering, null);
  }

  /** An operand without a rendering choice (disabled, or built by a test). */
  public RenderedOperand(String name, boolean enabled, List<HasMetadata> objects) {
    this(name, enabled, objects, Rendering.NONE, null);
  }

  /** The DaemonSets whose readiness is this operand's: its own, or the one hosting its agent. */
  public List<DaemonSet> daemonSets() {
    List<DaemonSet> out =
        new java.util.ArrayList<>(
            objects.stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .toList());
    if (hostedIn != null) {
      out.add(hostedIn);
    }
    return out;
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * What is specific to one operand's rendering (the original's per-state "transform"): changes to
 * its manifest objects after the common ones, which objects are rendered at all, a last pass over
 * the whole list, and the policy rules only this operand has. Pure: no client, no I/O.
 */
@FunctionalInterface
public interface Transform {
  /** An operand with nothing of its own. */
  Transform NONE = (object, ctx) -> {};

  /** Changes one manifest object (after the common transforms, before labels and hash). */
  void apply(HasMetadata object, RenderContext ctx);

  /** Whether a manifest object is rendered at all (e.g. a ServiceMonitor without its CRD). */
  default boolean keep(HasMetadata object, RenderContext ctx) {
    return true;
  }

  /** A pass over every rendered object, e.g. one driver DaemonSet per kernel. */
  default List<HasMetadata> finish(List<HasMetadata> objects, RenderContext ctx) {
    return objects;
  }

  /**
   * Where the policy section's {@code env} goes into the main container: merged after this
   * transform (the default, so the section's values win), placed by the transform itself (where the
   * original merges it between its own settings), or nowhere (the section's env and args do not
   * apply, as for the MPS control daemon, which borrows the device plugin's section).
   */
  default SectionEnv sectionEnv() {
    return SectionEnv.AFTER;
  }

  /** See {@link #sectionEnv()}. */
  enum SectionEnv {
    AFTER,
    BY_TRANSFORM,
    NONE
  }

  /** Violations of rules only this operand has; checked only when the operand is deployed. */
  default List<Violation> validate(ClusterPolicySpec spec) {
    return List.of();
  }
}

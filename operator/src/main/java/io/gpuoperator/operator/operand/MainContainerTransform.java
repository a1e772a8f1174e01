package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * A transform that changes an operand's DaemonSet through its main container (the operand's {@link
 * Operand#mainContainer}, which the rendering context names): the opening each such transform had
 * (find the DaemonSet, its pod, the container by name), written once. The operand's other objects
 * pass through untouched.
 */
interface MainContainerTransform extends Transform {
  /** Changes the DaemonSet, its pod spec and its main container. */
  void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx);

  @Override
  default void apply(HasMetadata object, RenderContext ctx) {
    if (object instanceof DaemonSet ds) {
      PodSpec pod = ds.getSpec().getTemplate().getSpec();
      apply(ds, pod, DaemonSets.container(pod, ctx.mainContainer()), ctx);
    }
  }
}

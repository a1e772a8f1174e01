package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * A per-node rule that replaces a container's behaviour, e.g. "the driver fails on this node".
 * Every condition that is set must match: the image contains {@code image}, the container is named
 * {@code container}, the pod's name starts with {@code podPrefix}.
 */
public record BehaviourOverride(
    String image, String container, String podPrefix, DeclaredBehaviour behaviour) {

  public BehaviourOverride {
    if (image == null && container == null && podPrefix == null) {
      throw new IllegalArgumentException(
          "an override needs at least one of image, container, podPrefix to match");
    }
    if (behaviour == null) {
      throw new IllegalArgumentException("an override needs a behaviour");
    }
  }

  public boolean matches(Pod pod, Container c) {
    return (image == null || (c.getImage() != null && c.getImage().contains(image)))
        && (container == null || container.equals(c.getName()))
        && (podPrefix == null || pod.getMetadata().getName().startsWith(podPrefix));
  }
}

package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.ContainerExtendedResourceRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatus;

/**
 * Extended resources (such as {@code nvidia.com/gpu}) that the scheduler satisfied through Dynamic
 * Resource Allocation instead of a device plugin, because a DeviceClass names them ({@code
 * extendedResourceName}, gate DRAExtendedResource): the pod's {@code
 * status.extendedResourceClaimStatus} maps container and resource to a claim the scheduler made.
 * The kubelet leaves these out of its resource-fit check and device-plugin allocation and prepares
 * the claim instead, as {@code isDRAExtendedResource} in the kubelet does.
 */
public final class DraExtendedResources {
  private DraExtendedResources() {}

  /** Whether the container's resource is served by DRA. */
  public static boolean backedByDra(Pod pod, String container, String resource) {
    PodExtendedResourceClaimStatus s = status(pod);
    if (s == null || s.getRequestMappings() == null) {
      return false;
    }
    for (ContainerExtendedResourceRequest m : s.getRequestMappings()) {
      if (container.equals(m.getContainerName()) && resource.equals(m.getResourceName())) {
        return true;
      }
    }
    return false;
  }

  /** Whether any of the container's extended resources is served by DRA. */
  public static boolean usedBy(Pod pod, String container) {
    PodExtendedResourceClaimStatus s = status(pod);
    return s != null
        && s.getRequestMappings() != null
        && s.getRequestMappings().stream().anyMatch(m -> container.equals(m.getContainerName()));
  }

  /** The claim the scheduler made for the pod's DRA-served extended resources, or null. */
  public static String claimName(Pod pod) {
    PodExtendedResourceClaimStatus s = status(pod);
    return s == null ? null : s.getResourceClaimName();
  }

  private static PodExtendedResourceClaimStatus status(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getExtendedResourceClaimStatus();
  }
}

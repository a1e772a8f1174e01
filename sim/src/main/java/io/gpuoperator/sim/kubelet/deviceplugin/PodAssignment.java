package io.gpuoperator.sim.kubelet.deviceplugin;

import java.util.List;

/** Everything the kubelet side assigned to one pod. */
public record PodAssignment(
    String uid, String namespace, String name, List<ContainerAssignment> containers) {
  public PodAssignment {
    containers = List.copyOf(containers);
  }

  /** Device IDs of a resource assigned to any container of the pod. */
  public List<String> deviceIds(String resource) {
    return containers.stream()
        .filter(c -> c.resource().equals(resource))
        .flatMap(c -> c.deviceIds().stream())
        .toList();
  }
}

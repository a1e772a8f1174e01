package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.List;

/**
 * Devices of one resource that the kubelet side assigned to one container, with the plugin's
 * answer; {@code initContainer} tells init containers apart (pod-resources lists only the others,
 * as the kubelet does).
 */
public record ContainerAssignment(
    String container,
    String resource,
    List<String> deviceIds,
    ContainerAllocateResponse response,
    boolean initContainer) {
  public ContainerAssignment {
    deviceIds = List.copyOf(deviceIds);
  }
}

package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.List;

/**
 * Devices of one resource that the kubelet side assigned to one container, with the plugin's
 * answer.
 */
public record ContainerAssignment(
    String container, String resource, List<String> deviceIds, ContainerAllocateResponse response) {
  public ContainerAssignment {
    deviceIds = List.copyOf(deviceIds);
  }
}

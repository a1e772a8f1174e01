package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.podresources.v1.DynamicResource;
import java.util.List;
import java.util.Map;

/**
 * Where the pod-resources server gets the devices prepared through Dynamic Resource Allocation (the
 * kubelet's DRA manager), listed per container beside the device-plugin devices.
 */
@FunctionalInterface
public interface DynamicResourceSource {

  /** Every pod holding prepared claims. */
  List<PodDynamicResources> pods();

  /**
   * One pod's dynamic resources.
   *
   * @param containers container name → the claims' devices it uses, in the pod-resources shape
   */
  record PodDynamicResources(
      String namespace, String name, Map<String, List<DynamicResource>> containers) {
    public PodDynamicResources {
      containers = Map.copyOf(containers);
    }
  }
}

package io.gpuoperator.node.exporter;

import io.gpuoperator.kubelet.podresources.v1.ClaimResource;
import io.gpuoperator.kubelet.podresources.v1.ContainerDevices;
import io.gpuoperator.kubelet.podresources.v1.ContainerResources;
import io.gpuoperator.kubelet.podresources.v1.DynamicResource;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which pods hold which devices, from the kubelet's pod-resources {@code List}: devices of the
 * NVIDIA resources ({@code nvidia.com/gpu}, {@code nvidia.com/gpu.shared}, {@code
 * nvidia.com/mig-*}, or the names in {@code NVIDIA_RESOURCE_NAMES}), by GPU or MIG UUID or {@code
 * nvidia<minor>}, time-slicing/MPS replicas ({@code <uuid>::<n>}) each as their own holder, and
 * devices of DRA claims allocated by {@value GpuReader#DRA_DRIVER} (by device name). A pure
 * function of the answer and the node's device IDs.
 */
public final class PodAttribution {
  private static final String GPU = "nvidia.com/gpu";
  private static final String MIG_PREFIX = "nvidia.com/mig-";
  private static final String REPLICA_SEPARATOR = "::";

  private final Set<String> extraResources;

  /**
   * @param extraResources further resource names to attribute ({@code NVIDIA_RESOURCE_NAMES})
   */
  public PodAttribution(Set<String> extraResources) {
    this.extraResources = Set.copyOf(extraResources);
  }

  /** Whether devices of a resource are NVIDIA GPUs this exporter attributes. */
  boolean attributes(String resource) {
    return resource.equals(GPU)
        || resource.startsWith(GPU + ".")
        || resource.startsWith(MIG_PREFIX)
        || extraResources.contains(resource);
  }

  /** The holders of each device; devices nobody holds are absent. */
  public Map<DeviceKey, List<PodRef>> holders(
      ListPodResourcesResponse pods, Map<String, DeviceKey> deviceIds) {
    Map<DeviceKey, List<PodRef>> out = new LinkedHashMap<>();
    for (PodResources pod : pods.getPodResourcesList()) {
      for (ContainerResources c : pod.getContainersList()) {
        for (ContainerDevices d : c.getDevicesList()) {
          if (!attributes(d.getResourceName())) {
            continue;
          }
          for (String id : d.getDeviceIdsList()) {
            String replica = null;
            int sep = id.indexOf(REPLICA_SEPARATOR);
            if (sep >= 0) {
              replica = id.substring(sep + REPLICA_SEPARATOR.length());
              id = id.substring(0, sep);
            }
            add(out, deviceIds.get(id), pod, c, replica);
          }
        }
        for (DynamicResource claim : c.getDynamicResourcesList()) {
          for (ClaimResource r : claim.getClaimResourcesList()) {
            if (GpuReader.DRA_DRIVER.equals(r.getDriverName())) {
              add(out, deviceIds.get(r.getDeviceName()), pod, c, null);
            }
          }
        }
      }
    }
    return out;
  }

  private static void add(
      Map<DeviceKey, List<PodRef>> out,
      DeviceKey key,
      PodResources pod,
      ContainerResources c,
      String replica) {
    if (key == null) {
      return; // a device of another node's inventory, or one that went away since
    }
    PodRef ref = new PodRef(pod.getName(), pod.getNamespace(), c.getName(), replica);
    List<PodRef> refs = out.computeIfAbsent(key, k -> new ArrayList<>());
    if (!refs.contains(ref)) {
      refs.add(ref);
    }
  }
}

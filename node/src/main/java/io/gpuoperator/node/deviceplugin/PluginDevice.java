package io.gpuoperator.node.deviceplugin;

import java.util.List;

/**
 * One device as the plugin advertises it: a whole GPU, a MIG device, or a replica of either.
 *
 * @param id the advertised ID: the UUID, or {@code <uuid>::<n>} for a replica
 * @param uuid the underlying GPU or MIG device UUID
 * @param index NVML index: {@code 0} for a GPU, {@code <gpu>:<mig index>} for a MIG device
 * @param gpuIndex index of the (parent) GPU
 * @param gpuInstanceId GPU-instance id of a MIG device, -1 for a whole GPU
 * @param computeInstanceId compute-instance id of a MIG device, -1 for a whole GPU
 * @param paths device nodes the container needs (host-relative, e.g. {@code /dev/nvidia0})
 * @param numaNode NUMA node, -1 when unknown
 * @param replica replica number, -1 when the device is not replicated
 */
public record PluginDevice(
    String id,
    String uuid,
    String index,
    int gpuIndex,
    int gpuInstanceId,
    int computeInstanceId,
    List<String> paths,
    int numaNode,
    int replica) {

  public PluginDevice {
    paths = List.copyOf(paths);
  }

  /** True for a MIG device (or a replica of one). */
  public boolean mig() {
    return gpuInstanceId >= 0;
  }

  /** True for a replica ({@code <uuid>::<n>}). */
  public boolean replicated() {
    return replica >= 0;
  }

  /** A replica of this device. */
  public PluginDevice replica(int n) {
    return new PluginDevice(
        uuid + PluginNames.REPLICA_SEPARATOR + n,
        uuid,
        index,
        gpuIndex,
        gpuInstanceId,
        computeInstanceId,
        paths,
        numaNode,
        n);
  }

  /** The ID without a replica suffix. */
  public static String stripReplica(String id) {
    int i = id.indexOf(PluginNames.REPLICA_SEPARATOR);
    return i < 0 ? id : id.substring(0, i);
  }
}

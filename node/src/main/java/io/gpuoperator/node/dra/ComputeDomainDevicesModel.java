package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.gpuoperator.node.gpu.GpuFabric;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What the {@code compute-domain.nvidia.com} driver offers on one node, as NVIDIA's compute-domain
 * kubelet plugin publishes it: IMEX channel 0 ({@code channel-0}, what the default channel
 * DeviceClass selects; the other channels reach a claim only through {@code allocationMode: All})
 * and the IMEX daemon's device ({@code daemon-0}), each with the attributes {@code type} and {@code
 * id}. Only on a node whose GPUs are attached to a multi-node NVLink fabric: elsewhere IMEX has
 * nothing to share, so the node offers no device and a channel claim is never allocated there.
 * Pure.
 */
public final class ComputeDomainDevicesModel {
  private ComputeDomainDevicesModel() {}

  /** The devices of a node in the clique; none without one (null or empty). */
  public static List<Device> devices(String clique) {
    if (clique == null || clique.isEmpty()) {
      return List.of();
    }
    return List.of(
        device(ComputeDomainNames.TYPE_CHANNEL, 0), device(ComputeDomainNames.TYPE_DAEMON, 0));
  }

  /**
   * The node's clique from its GPUs' fabrics ({@code <cluster uuid>.<clique id>}): empty when no
   * GPU is attached to a fabric.
   *
   * @throws IllegalStateException when the GPUs report different cliques (NVIDIA's plugin refuses
   *     to start then too: one node belongs to one clique)
   */
  public static Optional<String> clique(List<Optional<GpuFabric>> fabrics) {
    TreeSet<String> cliques = new TreeSet<>();
    fabrics.forEach(f -> f.ifPresent(x -> cliques.add(x.clique())));
    if (cliques.size() > 1) {
      throw new IllegalStateException(
          "the GPUs report "
              + cliques.size()
              + " NVLink fabric cliques ("
              + String.join(", ", cliques)
              + "); a node belongs to one");
    }
    return cliques.stream().findFirst();
  }

  /** The channel number of a channel device name ({@code channel-<n>}), or -1 for another. */
  public static int channelNumber(String device) {
    String prefix = ComputeDomainNames.TYPE_CHANNEL + "-";
    if (!device.startsWith(prefix) || !device.substring(prefix.length()).matches("[0-9]{1,9}")) {
      return -1;
    }
    return Integer.parseInt(device.substring(prefix.length()));
  }

  private static Device device(String type, int id) {
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    attributes.put(ComputeDomainNames.ATTR_TYPE, DeviceInventoryModel.string(type));
    attributes.put(ComputeDomainNames.ATTR_ID, DeviceInventoryModel.integer(id));
    Device d = new Device();
    d.setName(type + "-" + id);
    d.setAttributes(attributes);
    return d;
  }
}

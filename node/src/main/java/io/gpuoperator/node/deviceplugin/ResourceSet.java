package io.gpuoperator.node.deviceplugin;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One advertised resource with its devices: what one plugin server (socket) serves.
 *
 * @param name the resource name, e.g. {@code nvidia.com/gpu} or {@code nvidia.com/mig-1g.10gb}
 * @param devices its devices in advertised order
 * @param replicas replicas per underlying device (1 when not shared)
 */
public record ResourceSet(String name, List<PluginDevice> devices, int replicas) {
  public ResourceSet {
    devices = List.copyOf(devices);
  }

  /** The socket file name: {@code nvidia-<name without the nvidia.com/ prefix>.sock}. */
  public String socketName() {
    return "nvidia-" + name.substring(name.indexOf('/') + 1) + ".sock";
  }

  /** True when devices are replicas. */
  public boolean shared() {
    return replicas > 1;
  }

  /** Devices by advertised ID. */
  public Map<String, PluginDevice> byId() {
    Map<String, PluginDevice> map = new LinkedHashMap<>();
    devices.forEach(d -> map.put(d.id(), d));
    return map;
  }
}

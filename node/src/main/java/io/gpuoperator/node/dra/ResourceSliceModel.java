package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ResourceSlices of one node's pool (pool name = node name), in the API version the server
 * serves. Pure. Limits are the API server's: at most 128 devices per slice, 64 when devices consume
 * counters, at most 8 counter sets per slice, and counter sets and devices never in the same slice
 * (Kubernetes 1.35+); every slice carries the pool's generation and slice count.
 */
public final class ResourceSliceModel {
  static final int MAX_DEVICES = 128;
  static final int MAX_DEVICES_WITH_COUNTERS = 64;
  static final int MAX_COUNTER_SETS = 8;

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private ResourceSliceModel() {}

  /**
   * The slices of the GPU driver ({@code gpu.nvidia.com}), named {@code <node>-gpu.nvidia.com-<n>},
   * counter sets first. A node without devices still gets one empty slice, so the scheduler sees
   * the pool (and that it is empty) rather than an unknown one.
   */
  public static List<GenericKubernetesResource> build(
      String node, DeviceInventory inventory, long generation, ResourceApiVersion version) {
    return build(
        DraNames.DRIVER,
        node,
        inventory.devices().stream().map(ResourceSliceModel::device).toList(),
        inventory.counterSets(),
        generation,
        version);
  }

  /** The slices of a driver's pool on a node, named {@code <node>-<driver>-<n>}, as above. */
  public static List<GenericKubernetesResource> build(
      String driver,
      String node,
      List<Device> devices,
      List<CounterSet> sets,
      long generation,
      ResourceApiVersion version) {
    List<ResourceSliceSpec> specs = new ArrayList<>();
    for (int i = 0; i < sets.size(); i += MAX_COUNTER_SETS) {
      ResourceSliceSpec s = spec(driver, node);
      s.setSharedCounters(
          List.copyOf(sets.subList(i, Math.min(sets.size(), i + MAX_COUNTER_SETS))));
      specs.add(s);
    }
    int chunk = sets.isEmpty() ? MAX_DEVICES : MAX_DEVICES_WITH_COUNTERS;
    for (int i = 0; i < devices.size(); i += chunk) {
      ResourceSliceSpec s = spec(driver, node);
      s.setDevices(List.copyOf(devices.subList(i, Math.min(devices.size(), i + chunk))));
      specs.add(s);
    }
    if (specs.isEmpty()) {
      ResourceSliceSpec s = spec(driver, node);
      s.setDevices(List.of());
      specs.add(s);
    }
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      ResourceSliceSpec s = specs.get(i);
      s.setPool(new ResourcePool(generation, node, (long) specs.size()));
      out.add(resource(sliceName(driver, node, i), s, version));
    }
    return out;
  }

  /** The name of the node's n-th slice of the GPU driver. */
  public static String sliceName(String node, int n) {
    return sliceName(DraNames.DRIVER, node, n);
  }

  /** The name of the node's n-th slice of a driver. */
  public static String sliceName(String driver, String node, int n) {
    return node + "-" + driver + "-" + n;
  }

  private static ResourceSliceSpec spec(String driver, String node) {
    ResourceSliceSpec s = new ResourceSliceSpec();
    s.setDriver(driver);
    s.setNodeName(node);
    return s;
  }

  private static Device device(DraDevice d) {
    Device out = new Device();
    out.setName(d.name());
    out.setAttributes(new LinkedHashMap<>(d.attributes()));
    out.setCapacity(new LinkedHashMap<>(d.capacity()));
    if (d.counterSet() != null) {
      Map<String, Counter> counters = new LinkedHashMap<>();
      d.consumes().forEach((k, v) -> counters.put(k, new Counter(new Quantity(Long.toString(v)))));
      out.setConsumesCounters(List.of(new DeviceCounterConsumption(d.counterSet(), counters)));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static GenericKubernetesResource resource(
      String name, ResourceSliceSpec spec, ResourceApiVersion version) {
    Map<String, Object> specMap = JSON.convertValue(spec, Map.class);
    if (version.basicDevices() && specMap.get("devices") instanceof List<?> devices) {
      // v1beta1 keeps everything but the name under "basic".
      List<Map<String, Object>> wrapped = new ArrayList<>();
      for (Object o : devices) {
        Map<String, Object> device = new LinkedHashMap<>((Map<String, Object>) o);
        Object deviceName = device.remove("name");
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("name", deviceName);
        w.put("basic", device);
        wrapped.add(w);
      }
      specMap.put("devices", wrapped);
    }
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(version.apiVersion());
    r.setKind("ResourceSlice");
    r.setMetadata(new ObjectMetaBuilder().withName(name).build());
    r.setAdditionalProperty("spec", specMap);
    return r;
  }
}

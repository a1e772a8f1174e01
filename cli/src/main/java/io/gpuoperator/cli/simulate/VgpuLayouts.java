package io.gpuoperator.cli.simulate;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The vGPU device manager's config file ({@code version: v1}, {@code vgpu-configs: <name>:
 * [{devices: all | [indices], vgpu-devices: {<type>: <count per GPU>}}]}), as NVIDIA's
 * vgpu-device-manager reads it; pure. Errors name the file, the line and the field.
 */
final class VgpuLayouts {
  /**
   * One entry of a config: the GPUs it covers (null for {@code all}) and how many vGPUs of each
   * type each of them gets.
   */
  record Entry(List<Integer> devices, Map<String, Integer> vgpuDevices) {
    boolean covers(int gpuIndex) {
      return devices == null || devices.contains(gpuIndex);
    }
  }

  private VgpuLayouts() {}

  /** The entries of config {@code name} in {@code yaml}. */
  static List<Entry> select(String yaml, String source, String name) {
    Document doc = Documents.parse(yaml, source);
    if (!"v1".equals(doc.at("version").asText(null))) {
      throw doc.error("version", "expected v1, got " + doc.at("version"));
    }
    JsonNode configs = doc.at("vgpu-configs");
    if (!configs.isObject()) {
      throw doc.error("vgpu-configs", "expected a map of named configs");
    }
    JsonNode config = configs.get(name);
    if (config == null) {
      List<String> known = new ArrayList<>();
      configs.fieldNames().forEachRemaining(known::add);
      throw doc.error("vgpu-configs", "no config named " + name + "; it has " + known);
    }
    String at = "vgpu-configs." + name;
    if (!config.isArray() || config.isEmpty()) {
      throw doc.error(at, "expected a list of {devices, vgpu-devices} entries");
    }
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < config.size(); i++) {
      out.add(entry(doc, at + "[" + i + "]", config.get(i)));
    }
    return out;
  }

  private static Entry entry(Document doc, String at, JsonNode e) {
    JsonNode devices = e.path("devices");
    List<Integer> indices = null;
    if (devices.isArray()) {
      indices = new ArrayList<>();
      for (JsonNode d : devices) {
        if (!d.canConvertToInt() || d.asInt() < 0) {
          throw doc.error(at + ".devices", "expected all or a list of GPU indices, got " + d);
        }
        indices.add(d.asInt());
      }
    } else if (!"all".equals(devices.asText(null))) {
      throw doc.error(at + ".devices", "expected all or a list of GPU indices, got " + devices);
    }
    JsonNode types = e.path("vgpu-devices");
    if (!types.isObject() || types.isEmpty()) {
      throw doc.error(at + ".vgpu-devices", "expected a map of vGPU type to count");
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    var fields = types.fields();
    while (fields.hasNext()) {
      var f = fields.next();
      if (!f.getValue().canConvertToInt() || f.getValue().asInt() < 1) {
        throw doc.error(
            at + ".vgpu-devices",
            "the count of " + f.getKey() + " must be a whole number from 1, got " + f.getValue());
      }
      counts.put(f.getKey(), f.getValue().asInt());
    }
    return new Entry(indices == null ? null : List.copyOf(indices), counts);
  }
}

package io.gpuoperator.node.deviceplugin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The plugin's own CDI spec (vendor {@code k8s.device-plugin.nvidia.com}, class {@code gpu}): one
 * device per GPU or MIG device, named as the Allocate answer names it (UUID or index, by the
 * device-ID strategy), with its device nodes; the control devices that exist go to the spec-wide
 * edits. Driver libraries are not listed: they come from the toolkit's management spec and runtime
 * hook. Pure: file existence comes from the caller.
 */
public final class CdiSpecModel {
  /** The CDI spec version written. */
  public static final String CDI_VERSION = "0.5.0";

  /** The spec's file name in the CDI directory. */
  public static final String FILE_NAME =
      PluginNames.CDI_VENDOR + "-" + PluginNames.CDI_CLASS + ".json";

  private CdiSpecModel() {}

  /** The spec as a JSON-ready map. */
  public static Map<String, Object> build(
      List<ResourceSet> resources, DevicePluginSettings settings, Predicate<String> hostExists) {
    Map<String, PluginDevice> byName = new LinkedHashMap<>();
    for (ResourceSet r : resources) {
      for (PluginDevice d : r.devices()) {
        String name = settings.deviceIdStrategy() == DeviceIdStrategy.UUID ? d.uuid() : d.index();
        byName.putIfAbsent(name, d);
      }
    }
    List<Map<String, Object>> devices = new ArrayList<>();
    byName.forEach(
        (name, d) ->
            devices.add(
                Map.of(
                    "name",
                    name,
                    "containerEdits",
                    Map.of("deviceNodes", nodes(d.paths(), settings)))));
    Set<String> control = new LinkedHashSet<>();
    for (String c : PluginNames.CONTROL_DEVICES) {
      if (hostExists.test(hostPath(c, settings))) {
        control.add(c);
      }
    }
    Map<String, Object> edits = new LinkedHashMap<>();
    // Keeps the runtime hook from injecting every GPU when the container also has the env set.
    edits.put("env", List.of(PluginNames.VISIBLE_DEVICES_ENV + "=void"));
    if (!control.isEmpty()) {
      edits.put("deviceNodes", nodes(List.copyOf(control), settings));
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cdiVersion", CDI_VERSION);
    spec.put("kind", PluginNames.CDI_VENDOR + "/" + PluginNames.CDI_CLASS);
    spec.put("devices", devices);
    spec.put("containerEdits", edits);
    return spec;
  }

  private static List<Map<String, String>> nodes(List<String> paths, DevicePluginSettings s) {
    List<Map<String, String>> out = new ArrayList<>();
    for (String p : paths) {
      out.add(Map.of("path", p, "hostPath", hostPath(p, s)));
    }
    return out;
  }

  static String hostPath(String containerPath, DevicePluginSettings s) {
    Path root = s.devRoot() == null ? Path.of("/") : s.devRoot();
    return root.resolve(containerPath.substring(1)).toString();
  }
}

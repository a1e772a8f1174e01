package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.node.cdi.CdiSpec;
import io.gpuoperator.node.cdi.CdiSpecFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The plugin's own CDI spec (vendor {@code k8s.device-plugin.nvidia.com}, class {@code gpu}): one
 * device per GPU or MIG device, named as the Allocate answer names it (UUID or index, by the
 * device-ID strategy, as the toolkit's spec names them), with its device nodes; the control devices
 * that exist go to the spec-wide edits. Driver libraries are not listed: they come from the
 * toolkit's management spec and runtime hook. Pure: file existence comes from the caller.
 */
public final class CdiSpecModel {
  /** The spec's kind. */
  public static final String KIND = PluginNames.CDI_VENDOR + "/" + PluginNames.CDI_CLASS;

  /** The spec's file name in the CDI directory. */
  public static final String FILE_NAME = CdiSpecFiles.fileName(KIND, CdiSpecFiles.Format.JSON);

  private CdiSpecModel() {}

  /** The spec. */
  public static CdiSpec build(
      List<ResourceSet> resources, DevicePluginSettings settings, Predicate<String> hostExists) {
    Map<String, PluginDevice> byName = new LinkedHashMap<>();
    for (ResourceSet r : resources) {
      for (PluginDevice d : r.devices()) {
        String name = settings.deviceIdStrategy() == DeviceIdStrategy.UUID ? d.uuid() : d.index();
        byName.putIfAbsent(name, d);
      }
    }
    List<CdiSpec.Device> devices = new ArrayList<>();
    byName.forEach(
        (name, d) ->
            devices.add(
                new CdiSpec.Device(
                    name, CdiSpec.ContainerEdits.ofDeviceNodes(nodes(d.paths(), settings)))));
    List<String> control = new ArrayList<>();
    for (String c : PluginNames.CONTROL_DEVICES) {
      if (hostExists.test(hostPath(c, settings))) {
        control.add(c);
      }
    }
    // Keeps the runtime hook from injecting every GPU when the container also has the env set.
    CdiSpec.ContainerEdits edits =
        new CdiSpec.ContainerEdits(
            List.of(PluginNames.VISIBLE_DEVICES_ENV + "=void"),
            nodes(control, settings),
            List.of(),
            List.of());
    return new CdiSpec(CdiSpec.VERSION, KIND, devices, edits);
  }

  private static List<CdiSpec.DeviceNode> nodes(List<String> paths, DevicePluginSettings s) {
    List<CdiSpec.DeviceNode> out = new ArrayList<>();
    for (String p : paths) {
      out.add(new CdiSpec.DeviceNode(p, hostPath(p, s)));
    }
    return out;
  }

  static String hostPath(String containerPath, DevicePluginSettings s) {
    Path root = s.devRoot() == null ? Path.of("/") : s.devRoot();
    return root.resolve(containerPath.substring(1)).toString();
  }
}

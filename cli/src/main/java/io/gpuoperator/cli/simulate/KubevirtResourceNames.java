package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.sim.HardwareProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource names NVIDIA's KubeVirt device plugin advertises, by its rules: a passthrough GPU as
 * {@code nvidia.com/<its PCI device name>}, the name from the PCI ID database upper-cased with
 * {@code /} and {@code .} and runs of spaces made {@code _} and anything else but letters, digits
 * and {@code _} dropped ({@code GH100 [H100 SXM5 80GB]} is {@code GH100_H100_SXM5_80GB}), the
 * device id in hex where the database has no name; a vGPU as {@code nvidia.com/<its mdev type's
 * name>} with runs of spaces made {@code _} ({@code NVIDIA A100-10C} is {@code NVIDIA_A100-10C}).
 * The simulator's PCI ID database is what the built-in hardware profiles know ({@code pciName}).
 */
final class KubevirtResourceNames {
  static final String NAMESPACE = "nvidia.com/";

  private static volatile Map<Integer, String> pciNames;
  private static final Map<String, String> byModel = new ConcurrentHashMap<>();

  private KubevirtResourceNames() {}

  /** The resource of a passthrough GPU with this PCI device id. */
  static String passthrough(int deviceId) {
    String name = pciNames().get(deviceId);
    return NAMESPACE + (name == null ? String.format(Locale.ROOT, "%04x", deviceId) : clean(name));
  }

  /** The resource of a passthrough GPU of this model. */
  static String passthrough(HardwareProfile model) {
    return passthrough(model.pciDevice());
  }

  /**
   * The resource of a passthrough GPU of the built-in model named {@code model}; remembered, as the
   * simulation's status asks for it on every look.
   */
  static String passthrough(String model) {
    return byModel.computeIfAbsent(model, m -> passthrough(HardwareProfiles.builtIn(m)));
  }

  /** The resource of a vGPU whose mdev type's {@code name} file holds {@code typeName}. */
  static String vgpu(String typeName) {
    return NAMESPACE + typeName.trim().replaceAll("\\s+", "_");
  }

  /** The plugin's rule for a name from the PCI ID database. */
  static String clean(String pciName) {
    String s = pciName.trim().toUpperCase(Locale.ROOT).replace("/", "_").replace(".", "_");
    return s.replaceAll("\\s+", "_").replaceAll("[^a-zA-Z0-9_.]+", "");
  }

  /** Device id → name, from every built-in profile that has one. */
  private static Map<Integer, String> pciNames() {
    Map<Integer, String> names = pciNames;
    if (names == null) {
      names = new HashMap<>();
      for (String model : HardwareProfiles.BUILT_IN) {
        HardwareProfile p = HardwareProfiles.builtIn(model);
        if (p.pciName() != null) {
          names.put(p.pciDevice(), p.pciName());
        }
      }
      pciNames = Map.copyOf(names);
    }
    return names;
  }
}

package io.gpuoperator.node.mig;

import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Generates the default MIG configuration (the original's {@code default-mig-parted-config}) from
 * the hardware tables, with the original's names: {@code all-disabled}, {@code all-enabled}, {@code
 * all-balanced}, and {@code all-<profile>} ({@code +} written {@code .}) with each profile at its
 * maximum count. Every entry names the GPUs it was made for in its {@code device-filter}, grouped
 * by identical geometry, so each entry is valid for every GPU it selects.
 */
public final class MigConfigGenerator {
  /** Names that are not per-profile. */
  public static final String ALL_DISABLED = "all-disabled";

  public static final String ALL_ENABLED = "all-enabled";
  public static final String ALL_BALANCED = "all-balanced";

  private static volatile MigConfigFile defaults;

  private MigConfigGenerator() {}

  /** The default set for the built-in tables (generated once). */
  public static MigConfigFile defaults() {
    MigConfigFile d = defaults;
    if (d == null) {
      d = generate(MigCatalog.builtIn());
      defaults = d;
    }
    return d;
  }

  /** The config name for a profile: {@code all-1g.10gb.me} for {@code 1g.10gb+me}. */
  public static String configName(MigProfile profile) {
    return "all-" + profile.resourceSuffix();
  }

  /** The default set for a catalog. */
  public static MigConfigFile generate(MigCatalog catalog) {
    Map<String, List<MigConfigSpec>> configs = new LinkedHashMap<>();
    configs.put(ALL_DISABLED, List.of(MigConfigSpec.all(false, Map.of())));
    configs.put(ALL_ENABLED, List.of(MigConfigSpec.all(true, Map.of())));
    configs.put(ALL_BALANCED, balanced(catalog));
    // Profile name → (geometry → models), profiles ordered by slices, memory, then suffix.
    TreeMap<MigProfile, Map<Map<String, Integer>, List<HardwareProfile>>> byProfile =
        new TreeMap<>(
            Comparator.comparingInt(MigProfile::gpuSlices)
                .thenComparingInt(MigProfile::memoryGb)
                .thenComparing(MigProfile::attributes));
    for (HardwareProfile hw : catalog.models()) {
      for (HardwareProfile.GiProfile p : hw.mig().gpuInstanceProfiles()) {
        byProfile
            .computeIfAbsent(p.profile(), k -> new LinkedHashMap<>())
            .computeIfAbsent(Map.of(p.name(), p.instances()), k -> new ArrayList<>())
            .add(hw);
      }
    }
    byProfile.forEach((profile, groups) -> configs.put(configName(profile), entries(groups)));
    return new MigConfigFile(MigConfigFile.VERSION, configs);
  }

  /**
   * {@code all-balanced}: per GPU two of the smallest one-slice profile, one two-slice and (where
   * the GPU has seven slices) one three-slice profile, as the original's. A memory variant that
   * shares its device id with a model listed before it gets no entry of its own: a device filter
   * cannot tell them apart.
   */
  private static List<MigConfigSpec> balanced(MigCatalog catalog) {
    Map<Map<String, Integer>, List<HardwareProfile>> groups = new LinkedHashMap<>();
    Set<String> covered = new LinkedHashSet<>();
    for (HardwareProfile hw : catalog.models()) {
      if (MigCatalog.filterIds(hw).stream().anyMatch(covered::contains)) {
        continue;
      }
      Optional<Map<String, Integer>> layout = balancedLayout(hw);
      if (layout.isPresent()) {
        covered.addAll(MigCatalog.filterIds(hw));
        groups.computeIfAbsent(layout.get(), k -> new ArrayList<>()).add(hw);
      }
    }
    return entries(groups);
  }

  /** The balanced layout of a model, if its table has the profiles. */
  static Optional<Map<String, Integer>> balancedLayout(HardwareProfile hw) {
    List<HardwareProfile.GiProfile> plain =
        hw.mig().gpuInstanceProfiles().stream()
            .filter(p -> p.profile().attributes().isEmpty())
            .sorted(Comparator.comparingLong(HardwareProfile.GiProfile::memoryMB))
            .toList();
    Map<String, Integer> layout = new LinkedHashMap<>();
    for (int slices : new int[] {1, 2, 3}) {
      plain.stream()
          .filter(p -> p.profile().gpuSlices() == slices)
          .findFirst()
          .ifPresent(p -> layout.put(p.name(), slices == 1 ? 2 : 1));
    }
    return layout.size() >= 2 ? Optional.of(layout) : Optional.empty();
  }

  private static List<MigConfigSpec> entries(
      Map<Map<String, Integer>, List<HardwareProfile>> groups) {
    List<MigConfigSpec> out = new ArrayList<>();
    groups.forEach(
        (devices, models) -> {
          Set<String> ids = new LinkedHashSet<>();
          models.forEach(m -> ids.addAll(MigCatalog.filterIds(m)));
          out.add(new MigConfigSpec(MigConfigSpec.Devices.ALL, true, devices, List.copyOf(ids)));
        });
    return out;
  }
}

package io.gpuoperator.node.mig;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigConfigGeneratorTest {
  /** The original default ConfigMap's 81 config names (operand-contracts reference, section 8). */
  static final List<String> ORIGINAL_NAMES =
      List.of(
          "all-disabled",
          "all-enabled",
          "all-1g.5gb",
          "all-1g.5gb.me",
          "all-2g.10gb",
          "all-3g.20gb",
          "all-4g.20gb",
          "all-7g.40gb",
          "all-1g.24gb.gfx",
          "all-1g.24gb.me.all",
          "all-1g.24gb-me",
          "all-2g.48gb",
          "all-2g.48gb.gfx",
          "all-2g.48gb.me.all",
          "all-2g.48gb-me",
          "all-4g.96gb",
          "all-4g.96gb.gfx",
          "all-1g.10gb",
          "all-1g.10gb.me",
          "all-1g.20gb",
          "all-1g.23gb",
          "all-1g.23gb.me",
          "all-1g.24gb.me",
          "all-2g.20gb",
          "all-3g.40gb",
          "all-4g.40gb",
          "all-7g.80gb",
          "all-1g.6gb",
          "all-1g.6gb.me",
          "all-2g.12gb",
          "all-2g.12gb.me",
          "all-4g.24gb",
          "all-1g.12gb",
          "all-1g.12gb.me",
          "all-1g.24gb",
          "all-1g.45gb",
          "all-1g.47gb",
          "all-2g.24gb",
          "all-2g.45gb",
          "all-2g.47gb",
          "all-3g.47gb",
          "all-4g.47gb",
          "all-7g.94gb",
          "all-3g.48gb",
          "all-3g.90gb",
          "all-3g.93gb",
          "all-3g.95gb",
          "all-4g.48gb",
          "all-4g.90gb",
          "all-4g.93gb",
          "all-4g.95gb",
          "all-7g.96gb",
          "all-7g.180gb",
          "all-7g.186gb",
          "all-7g.189gb",
          "all-balanced",
          "all-1g.18gb",
          "all-1g.18gb.me",
          "all-1g.35gb",
          "all-2g.35gb",
          "all-3g.71gb",
          "all-4g.71gb",
          "all-7g.141gb",
          "all-1g.36gb",
          "all-2g.36gb",
          "all-3g.72gb",
          "all-4g.72gb",
          "all-7g.144gb",
          "all-1g.34gb",
          "all-1g.34gb.me",
          "all-1g.67gb",
          "all-2g.67gb",
          "all-3g.135gb",
          "all-4g.135gb",
          "all-7g.269gb",
          "all-1g.35gb.me",
          "all-1g.70gb",
          "all-2g.70gb",
          "all-3g.139gb",
          "all-4g.139gb",
          "all-7g.278gb");

  /** Device ids the original's default config names in its device filters (reference, §8). */
  static final List<String> ORIGINAL_DEVICE_IDS =
      List.of(
          "0x2330", "0x2331", "0x2322", "0x20B2", "0x20B5", "0x20F3", "0x20F5", "0x2324", "0x20B0",
          "0x20B1", "0x20F1", "0x20F6", "0x20B7", "0x2342", "0x233D", "0x20B6", "0x2329", "0x2321",
          "0x233A", "0x2335", "0x233B", "0x2348", "0x2901", "0x2941", "0x2BB5", "0x3182", "0x31C2");

  final MigConfigFile defaults = MigConfigGenerator.defaults();

  @Test
  void generatesExactlyTheOriginalsConfigNames() {
    assertThat(ORIGINAL_NAMES).hasSize(81).doesNotHaveDuplicates();
    assertThat(defaults.migConfigs().keySet()).containsExactlyInAnyOrderElementsOf(ORIGINAL_NAMES);
  }

  @Test
  void everyDeviceIdOfTheOriginalHasATableAndAnAllBalancedEntry() {
    MigCatalog catalog = MigCatalog.builtIn();
    List<String> balancedIds =
        defaults.config("all-balanced").stream().flatMap(e -> e.deviceFilter().stream()).toList();
    for (String id : ORIGINAL_DEVICE_IDS) {
      String filter = id + "10DE";
      assertThat(catalog.byFilterId(filter)).as(id).isNotEmpty();
      assertThat(balancedIds).as(id).contains(filter);
    }
  }

  @Test
  void everyGeneratedEntryIsValidForEveryGpuItWasMadeFor() {
    MigCatalog catalog = MigCatalog.builtIn();
    int checked = 0;
    for (var config : defaults.migConfigs().entrySet()) {
      for (MigConfigSpec e : config.getValue()) {
        for (String id : e.deviceFilter()) {
          // Memory variants share an id: the entry must fit at least one of them.
          List<HardwareProfile> models = catalog.byFilterId(id);
          assertThat(models)
              .as(config.getKey() + " " + id)
              .anySatisfy(
                  hw -> assertThat(MigConfigValidator.problem(hw, e.migDevices())).isNull());
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(150);
    assertThat(MigConfigValidator.validate(defaults, catalog))
        .allSatisfy(
            v -> assertThat(v.status()).as(v.summary()).isEqualTo(MigConfigValidator.Status.VALID));
  }

  @Test
  void geometriesMatchTheOriginalsCounts() {
    assertThat(defaults.config("all-1g.10gb"))
        .extracting(MigConfigSpec::migDevices)
        .containsExactlyInAnyOrder(Map.of("1g.10gb", 7), Map.of("1g.10gb", 4));
    MigConfigSpec h100 =
        defaults.config("all-1g.10gb").stream()
            .filter(e -> e.migDevices().get("1g.10gb") == 7)
            .findFirst()
            .orElseThrow();
    assertThat(h100.deviceFilter())
        .containsExactlyInAnyOrder(
            "0x233010DE",
            "0x233110DE",
            "0x232210DE",
            "0x232410DE",
            "0x20B210DE",
            "0x20B510DE",
            "0x20F310DE",
            "0x20F510DE");
    assertThat(defaults.config("all-balanced"))
        .extracting(MigConfigSpec::migDevices)
        .contains(
            Map.of("1g.5gb", 2, "2g.10gb", 1, "3g.20gb", 1),
            Map.of("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1),
            Map.of("1g.18gb", 2, "2g.35gb", 1, "3g.71gb", 1),
            Map.of("1g.12gb", 2, "2g.24gb", 1, "3g.47gb", 1),
            Map.of("1g.6gb", 2, "2g.12gb", 1));
    assertThat(defaults.config("all-1g.5gb").get(0).migDevices()).isEqualTo(Map.of("1g.5gb", 7));
    assertThat(defaults.config("all-1g.5gb.me").get(0).migDevices())
        .isEqualTo(Map.of("1g.5gb+me", 1));
    assertThat(defaults.config("all-7g.141gb").get(0).deviceFilter())
        .containsExactly("0x233510DE", "0x233B10DE");
    assertThat(defaults.config("all-disabled")).containsExactly(MigConfigSpec.all(false, Map.of()));
  }

  @Test
  void theYamlRoundTrips() {
    String yaml = defaults.toYaml();
    assertThat(yaml).startsWith("version: v1\nmig-configs:\n  all-disabled:\n");
    assertThat(MigConfigFile.parse(yaml, "generated")).isEqualTo(defaults);
  }
}

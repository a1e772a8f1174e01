package io.gpuoperator.node.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigGeometryTest {
  final MigGeometry h100 = MigGeometry.of(HardwareProfiles.builtIn("H100-SXM5-80GB")).orElseThrow();

  static Map<String, Integer> devices(Object... kv) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Integer) kv[i + 1]);
    }
    return m;
  }

  @Test
  void overBudgetNamesProfileCountSlicesAndGpu() {
    assertThat(h100.check(devices("3g.40gb", 3)).problem())
        .isEqualTo("3g.40gb ×3 exceeds its maximum of 2 per GPU on H100-SXM5-80GB");
    assertThat(h100.check(devices("2g.20gb", 3, "3g.40gb", 1)).problem())
        .isEqualTo("2g.20gb ×3 + 3g.40gb ×1 need 9 of 7 compute slices on H100-SXM5-80GB");
    assertThat(h100.check(devices("4g.40gb", 1, "3g.40gb", 1, "1g.10gb", 1)).problem())
        .isEqualTo(
            "4g.40gb ×1 + 3g.40gb ×1 + 1g.10gb ×1 need 8 of 7 compute slices on H100-SXM5-80GB");
  }

  @Test
  void unknownProfileListsTheGpusProfiles() {
    assertThat(h100.check(devices("1g.5gb", 7)).problem())
        .startsWith("H100-SXM5-80GB has no MIG profile 1g.5gb (its profiles: 1g.10gb, 1g.10gb+me,");
    assertThat(h100.check(devices("one-slice", 1)).problem()).contains("invalid MIG profile");
  }

  @Test
  void noPlacementIsDetectedWithinTheSliceBudget() {
    // 5 compute slices, but four 1g.20gb take all 8 memory slices.
    var fit = h100.check(devices("1g.20gb", 4, "1g.10gb", 1));
    assertThat(fit.problem())
        .startsWith(
            "1g.20gb ×4 + 1g.10gb ×1 fit the compute slices but no placement holds them together on H100-SXM5-80GB (1g.20gb at 0:2,2:2,4:2,6:2; 1g.10gb at 0:1,");
  }

  @Test
  void fittingSetsArePlacedWithoutOverlapInPlacementOrder() {
    var fit = h100.check(devices("1g.10gb", 2, "2g.20gb", 1, "3g.40gb", 1));
    assertThat(fit.fits()).isTrue();
    var placements = fit.slots().stream().map(MigGeometry.Slot::placement).toList();
    assertThat(placements)
        .hasSize(4)
        .isSortedAccordingTo(java.util.Comparator.comparingInt(Placement::start));
    for (int i = 0; i < placements.size(); i++) {
      for (int j = i + 1; j < placements.size(); j++) {
        assertThat(placements.get(i).overlaps(placements.get(j))).isFalse();
      }
    }
    // The 3g.40gb can only sit at 0 or 4; 1g.10gb never at 7.
    assertThat(fit.slots())
        .filteredOn(s -> s.profile().name().equals("3g.40gb"))
        .extracting(s -> s.placement().start())
        .containsAnyOf(0, 4);
    assertThat(fit.slots())
        .filteredOn(s -> s.profile().name().equals("1g.10gb"))
        .extracting(s -> s.placement().start())
        .allMatch(s -> s <= 6);
    assertThat(h100.check(devices("1g.10gb", 7)).slots()).hasSize(7);
    assertThat(h100.check(devices("1c.3g.40gb", 2)).slots())
        .extracting(MigGeometry.Slot::deviceName)
        .containsExactly("1c.3g.40gb", "1c.3g.40gb");
    assertThat(h100.check(Map.of()).fits()).isTrue();
  }

  @Test
  void fourSliceGpusHaveTheirOwnBudget() {
    MigGeometry a30 = MigGeometry.of(HardwareProfiles.builtIn("A30-PCIE-24GB")).orElseThrow();
    assertThat(a30.check(devices("1g.6gb", 4)).fits()).isTrue();
    assertThat(a30.check(devices("2g.12gb", 2, "1g.6gb", 1)).problem())
        .isEqualTo("2g.12gb ×2 + 1g.6gb ×1 need 5 of 4 compute slices on A30-PCIE-24GB");
  }
}

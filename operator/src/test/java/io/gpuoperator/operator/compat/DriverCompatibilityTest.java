package io.gpuoperator.operator.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.OperandImages;
import io.gpuoperator.operator.compat.DriverCompatibility.DriverChoice;
import io.gpuoperator.operator.compat.DriverCompatibility.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DriverCompatibilityTest {
  static final DriverCompatibility MATRIX = DriverCompatibility.shipped();
  static final String CUDA12 = OperandImages.nvidiaDefault(OperandImages.CUDA_WORKLOAD);

  /** A choice without a CUDA workload, so that only the architecture rules apply. */
  static DriverChoice driver(String version, String modules) {
    return new DriverChoice(version, modules, false, "ubuntu22.04", null, null);
  }

  static List<Problem> on(String family, DriverChoice choice) {
    return MATRIX.check(choice, Map.of("node-1", Map.of(DriverCompatibility.FAMILY_LABEL, family)));
  }

  /** Every architecture of the shipped file at the edges of its branch range. */
  @ParameterizedTest(name = "{0} with {1} ({2}): {3}")
  @CsvSource({
    "kepler,       470.256.02, auto,        ok",
    "kepler,       525.60.13,  auto,        supported up to driver branch 470",
    "maxwell,      580.65.06,  auto,        ok",
    "maxwell,      590.10,     auto,        supported up to driver branch 580",
    "pascal,       590.10,     auto,        supported up to driver branch 580",
    "pascal,       550.54.15,  open,        do not work with the open kernel modules",
    "volta,        525.60.13,  proprietary, ok",
    "volta,        595.91.07,  auto,        supported up to driver branch 580",
    "turing,       525.60.13,  open,        ok",
    "ampere,       450.80.02,  auto,        ok",
    "ampere,       440.33.01,  auto,        need driver branch 450 or newer",
    "ada-lovelace, 520.61.05,  auto,        need driver branch 525 or newer",
    "hopper,       525.60.13,  auto,        ok",
    "hopper,       470.256.02, auto,        need driver branch 525 or newer, not 470",
    "blackwell,    570.86.15,  open,        ok",
    "blackwell,    570.86.15,  auto,        ok",
    "blackwell,    570.86.15,  proprietary, need the open kernel modules",
    "blackwell,    550.54.15,  auto,        need driver branch 570 or newer"
  })
  void architectures(String family, String version, String modules, String expected) {
    List<Problem> problems = on(family, driver(version, modules));
    if (expected.equals("ok")) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems)
          .singleElement()
          .satisfies(p -> assertThat(p.reason()).contains(family).contains(expected))
          .satisfies(p -> assertThat(p.nodes()).containsExactly("node-1"));
    }
  }

  @Test
  void nodesWithTheSameProblemAreNamedTogetherAndUnknownArchitecturesPass() {
    var nodes =
        Map.of(
            "h-2", Map.of(DriverCompatibility.FAMILY_LABEL, "hopper"),
            "h-1", Map.of(DriverCompatibility.FAMILY_LABEL, "hopper"),
            "a-1", Map.of(DriverCompatibility.FAMILY_LABEL, "ampere"),
            "new", Map.<String, String>of(),
            "r-1", Map.of(DriverCompatibility.FAMILY_LABEL, "rubin"));
    List<Problem> problems = MATRIX.check(driver("470.256.02", "auto"), nodes);
    assertThat(problems)
        .singleElement()
        .satisfies(p -> assertThat(p.nodes()).containsExactly("h-1", "h-2"));
    assertThat(problems.get(0).toString())
        .isEqualTo("hopper GPUs need driver branch 525 or newer, not 470 (nodes h-1, h-2)");
  }

  @Test
  void openKernelModulesNeedTheirFirstBranch() {
    assertThat(on("ampere", driver("510.108.03", "open")))
        .singleElement()
        .satisfies(
            p -> assertThat(p.reason()).contains("open kernel modules need driver branch 515"));
  }

  @Test
  void theCudaWorkloadNeedsABranchThatRunsItsCudaVersion() {
    DriverChoice cuda12 =
        new DriverChoice("470.256.02", "auto", false, "ubuntu22.04", null, CUDA12);
    assertThat(on("ampere", cuda12))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.reason())
                    .contains("CUDA 12")
                    .contains("needs driver branch 525 or newer, not 470"));
    DriverChoice cuda11 =
        new DriverChoice(
            "470.256.02", "auto", false, "ubuntu22.04", null, "cuda-sample:vectoradd-cuda11.7.1");
    assertThat(on("ampere", cuda11)).isEmpty();
  }

  @Test
  void precompiledImagesExistForPublishedOsAndKernelFlavoursAndBranchTags() {
    DriverChoice ok =
        new DriverChoice("550", "auto", true, "ubuntu22.04", "5.15.0-105-generic", CUDA12);
    assertThat(MATRIX.check(ok, Map.of())).isEmpty();
    DriverChoice rhel =
        new DriverChoice("550", "auto", true, "rhel9", "5.14.0-427.13.1.el9_4.x86_64", CUDA12);
    assertThat(MATRIX.check(rhel, Map.of()))
        .singleElement()
        .satisfies(p -> assertThat(p.reason()).contains("no precompiled driver images for rhel9"));
    DriverChoice lowlatency =
        new DriverChoice("550", "auto", true, "ubuntu24.04", "6.8.0-31-lowlatency", CUDA12);
    assertThat(MATRIX.check(lowlatency, Map.of()))
        .singleElement()
        .satisfies(p -> assertThat(p.reason()).contains("kernel 6.8.0-31-lowlatency"));
    DriverChoice fullVersion =
        new DriverChoice("550.54.15", "auto", true, "ubuntu22.04", "5.15.0-105-generic", CUDA12);
    assertThat(MATRIX.check(fullVersion, Map.of()))
        .singleElement()
        .satisfies(p -> assertThat(p.reason()).contains("must be a branch such as 550"));
  }

  @Test
  void branchesComeFromVersionsAndDigestsHaveNone() {
    assertThat(DriverCompatibility.branch("550.54.15")).isEqualTo(550);
    assertThat(DriverCompatibility.branch("535")).isEqualTo(535);
    assertThat(DriverCompatibility.branch("sha256:0123abcd")).isNull();
    assertThat(DriverCompatibility.branch("latest")).isNull();
    // A digest skips branch checks: nothing is refused that cannot be known.
    assertThat(on("hopper", driver("sha256:0123", "auto"))).isEmpty();
  }

  @Test
  void aMalformedMatrixIsRejectedNamingTheEntry() {
    assertThatThrownBy(
            () ->
                DriverCompatibility.parse(
                    "architectures:\n- family: hopper\n  kernelModules: sometimes\n"))
        .hasMessageContaining("hopper")
        .hasMessageContaining("'sometimes'");
    assertThatThrownBy(() -> DriverCompatibility.parse("architecturez: []\n"))
        .hasMessageContaining("architecturez");
  }
}

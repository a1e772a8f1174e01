package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.operator.validation.PolicyValidationException;
import org.junit.jupiter.api.Test;

class ImageResolverTest {
  private static ComponentSpec spec(String repo, String image, String version) {
    ComponentSpec c = new ComponentSpec();
    c.repository = repo;
    c.image = image;
    c.version = version;
    return c;
  }

  @Test
  void tripleTagDigestVerbatimAndFallback() {
    assertThat(ImageResolver.resolve(spec("nvcr.io/nvidia", "driver", "570"), "spec.driver", "x"))
        .isEqualTo("nvcr.io/nvidia/driver:570");
    assertThat(ImageResolver.resolve(spec("r/", "i", "sha256:abc"), "p", "x"))
        .isEqualTo("r/i@sha256:abc");
    assertThat(ImageResolver.resolve(spec(null, "quay.io/a/b:1", null), "p", "x"))
        .isEqualTo("quay.io/a/b:1");
    assertThat(ImageResolver.resolve(spec(" ", "", null), "p", "fallback:1"))
        .isEqualTo("fallback:1");
    assertThat(ImageResolver.resolve(null, "p", "fallback:1")).isEqualTo("fallback:1");
  }

  @Test
  void halfSetTripleNamesTheMissingFields() {
    assertThatThrownBy(() -> ImageResolver.resolve(spec("r", null, "v1"), "spec.gfd", "x"))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("spec.gfd.image: must be set together with repository and version");
    assertThat(
            io.gpuoperator.operator.validation.ImageRules.check(spec(null, "i", "v"), "spec.dcgm"))
        .extracting(v -> v.path())
        .containsExactly("spec.dcgm.repository");
  }

  @Test
  void noImageAnywhereIsAnError() {
    assertThatThrownBy(() -> ImageResolver.resolve(null, "spec.driver", null))
        .hasMessageContaining("spec.driver.image: no image configured");
  }

  @Test
  void unknownPullPolicyMeansIfNotPresent() {
    assertThat(ImageResolver.pullPolicy("Always")).isEqualTo("Always");
    assertThat(ImageResolver.pullPolicy("Never")).isEqualTo("Never");
    assertThat(ImageResolver.pullPolicy("sometimes")).isEqualTo("IfNotPresent");
    assertThat(ImageResolver.pullPolicy(null)).isEqualTo("IfNotPresent");
  }
}

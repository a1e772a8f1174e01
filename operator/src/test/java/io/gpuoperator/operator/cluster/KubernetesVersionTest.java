package io.gpuoperator.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubernetesVersionTest {

  @ParameterizedTest
  @CsvSource({
    "v1.36.3, 1, 36",
    "v1.29.0, 1, 29",
    "v1.30.4-gke.1348000, 1, 30",
    "v1.31.2+k3s1, 1, 31",
    "1.32, 1, 32"
  })
  void parsesWhatDistributionsReport(String git, int major, int minor) {
    KubernetesVersion v = KubernetesVersion.parse(git).orElseThrow();
    assertThat(v.major()).isEqualTo(major);
    assertThat(v.minor()).isEqualTo(minor);
  }

  @Test
  void unreadableVersionsAreEmpty() {
    assertThat(KubernetesVersion.parse(null)).isEmpty();
    assertThat(KubernetesVersion.parse("latest")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"v1.29.0", "v1.36.3", "v1.37.2", "v2.0.0", "weird"})
  void supported(String git) {
    assertThat(KubernetesVersion.unsupportedReason(git)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"v1.28.15", "v1.25.0", "v1.19.16"})
  void olderThanTheMinimumIsRefusedWithAReasonNamingBoth(String git) {
    assertThat(KubernetesVersion.unsupportedReason(git))
        .hasValueSatisfying(
            r -> assertThat(r).contains(git).contains("v1.29").contains("upgrade the cluster"));
  }
}

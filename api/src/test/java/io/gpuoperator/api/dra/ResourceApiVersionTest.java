package io.gpuoperator.api.dra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceApiVersionTest {
  @Test
  void theNewestServedVersionWins() {
    // Kubernetes 1.36 serves v1 (and v1beta1/v1beta2 only when enabled).
    assertThat(ResourceApiVersion.choose(List.of("v1beta2", "v1", "v1beta1")))
        .contains(ResourceApiVersion.V1);
    // 1.33: v1beta2 and v1beta1.
    assertThat(ResourceApiVersion.choose(List.of("v1beta1", "v1beta2")))
        .contains(ResourceApiVersion.V1BETA2);
    // 1.32: only v1beta1, whose devices wrap their fields in "basic".
    var v = ResourceApiVersion.choose(List.of("v1beta1")).orElseThrow();
    assertThat(v.basicDevices()).isTrue();
    assertThat(v.apiVersion()).isEqualTo("resource.k8s.io/v1beta1");
    // 1.31 and older: only the classic alpha API, which structured parameters do not use.
    assertThat(ResourceApiVersion.choose(List.of("v1alpha3", "v1alpha2"))).isEmpty();
    assertThat(ResourceApiVersion.choose(List.of())).isEmpty();
  }
}

package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

class ServerVersionTest {

  @Test
  void comparesGitVersions() {
    assertThat(ServerVersion.atLeast("v1.20.2", 1, 22)).isFalse();
    assertThat(ServerVersion.atLeast("v1.22.0", 1, 22)).isTrue();
    assertThat(ServerVersion.atLeast("v1.30.1+k3s1", 1, 22)).isTrue();
    assertThat(ServerVersion.atLeast("v2.0.0", 1, 22)).isTrue();
    assertThat(ServerVersion.atLeast(null, 1, 22)).isTrue();
  }

  @Test
  void internalTrafficPolicyOnlyWhereTheServerKnowsIt() {
    Service old = service();
    ServerVersion.adapt(old, "v1.20.2");
    assertThat(old.getSpec().getInternalTrafficPolicy()).isNull();

    Service current = service();
    ServerVersion.adapt(current, "v1.29.0");
    assertThat(current.getSpec().getInternalTrafficPolicy()).isEqualTo("Local");
  }

  private static Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("nvidia-dcgm")
        .endMetadata()
        .withNewSpec()
        .withInternalTrafficPolicy("Local")
        .endSpec()
        .build();
  }
}

package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.operator.config.OperatorConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorCommandTest {
  @Test
  void environmentGivesTheDefaultsAndFlagsOverrideThem() {
    OperatorConfig env = OperatorCommand.configFor(Map.of("OPERATOR_NAMESPACE", "gpu"));
    assertThat(env.namespace()).isEqualTo("gpu");
    assertThat(env.metricsPort()).isEqualTo(8080);
    assertThat(env.healthPort()).isEqualTo(8081);
    assertThat(env.leaderElection()).isTrue();
    assertThat(env.leaderElectionNamespace()).isEqualTo("gpu");
    assertThat(env.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(env.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(env.retryPeriod()).isEqualTo(Duration.ofSeconds(2));

    OperatorConfig flags =
        OperatorCommand.configFor(
            Map.of("OPERATOR_NAMESPACE", "gpu", "METRICS_PORT", "9000"),
            "--metrics-bind-address=127.0.0.1:9100",
            "--health-probe-bind-address=:9101",
            "--leader-elect=false",
            "--leader-elect-namespace=kube-system");
    assertThat(flags.metricsPort()).isEqualTo(9100);
    assertThat(flags.healthPort()).isEqualTo(9101);
    assertThat(flags.leaderElection()).isFalse();
    assertThat(flags.leaderElectionNamespace()).isEqualTo("kube-system");
    assertThat(OperatorCommand.bindHost("127.0.0.1:9100")).isEqualTo("127.0.0.1");
    assertThat(OperatorCommand.bindHost(":9100")).isEqualTo("0.0.0.0");
  }

  @Test
  void aBadAddressNamesTheFlag() {
    assertThatThrownBy(
            () -> OperatorCommand.configFor(Map.of(), "--metrics-bind-address=localhost:http"))
        .isInstanceOf(io.gpuoperator.config.ConfigException.class)
        .hasMessage(
            "--metrics-bind-address: expected [host]:port such as :8080 or 127.0.0.1:8080, got"
                + " \"localhost:http\"");
  }

  @Test
  void badEnvironmentValuesNameTheVariable() {
    assertThatThrownBy(() -> OperatorCommand.configFor(Map.of("METRICS_PORT", "99999")))
        .hasMessage("METRICS_PORT: expected a whole number from 0 to 65535, got \"99999\"");
    assertThatThrownBy(() -> OperatorCommand.configFor(Map.of("OPERATOR_NAMESPACE", "x/y")))
        .hasMessageStartingWith("OPERATOR_NAMESPACE: expected a name of at most 63");
    assertThatThrownBy(() -> OperatorCommand.configFor(Map.of("DRIVER_IMAGE", "not a ref")))
        .hasMessageStartingWith("DRIVER_IMAGE: expected an image reference");
    assertThatThrownBy(() -> OperatorCommand.configFor(Map.of("LEASE_DURATION", "0s")))
        .hasMessage("LEASE_DURATION: expected a duration from 100ms to 10m0s, got \"0s\"");
    assertThatThrownBy(
            () -> OperatorCommand.configFor(Map.of("SIMULATED_HARDWARE_DIR", "relative/path")))
        .hasMessage("SIMULATED_HARDWARE_DIR: expected an absolute path, got relative/path");
  }

  @Test
  void simulatedHardwareIsOffByDefaultAndTakesAnAbsoluteHostFolder() {
    assertThat(OperatorCommand.configFor(Map.of()).simulatedHardwareDir()).isNull();
    assertThat(
            OperatorCommand.configFor(Map.of("SIMULATED_HARDWARE_DIR", "/etc/gpu-operator/sim"))
                .simulatedHardwareDir())
        .isEqualTo("/etc/gpu-operator/sim");
  }
}

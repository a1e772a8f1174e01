package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulated operator container listens where it can: the listen-address flags are dropped. */
class OperatorInProcessAgentTest {
  @Test
  void dropsTheListenAddressFlagsInBothFormsAndKeepsTheRest() {
    assertThat(
            OperatorInProcessAgent.withoutBindFlags(
                List.of(
                    "--leader-elect",
                    "--metrics-bind-address=:8080",
                    "--health-probe-bind-address",
                    ":8081",
                    "--zap-log-level",
                    "debug")))
        .containsExactly("--leader-elect", "--zap-log-level", "debug");
    assertThat(OperatorInProcessAgent.withoutBindFlags(List.of("--leader-elect")))
        .containsExactly("--leader-elect");
  }
}

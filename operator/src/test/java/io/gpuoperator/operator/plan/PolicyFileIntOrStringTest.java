package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Int-or-string fields given as YAML numbers bind offline (plan, simulate) as on the server. */
class PolicyFileIntOrStringTest {
  @Test
  void numbersAndPercentagesBindToIntOrString() {
    PolicyFile f =
        PolicyFile.parse(
            """
            apiVersion: nvidia.com/v1
            kind: ClusterPolicy
            metadata:
              name: p
            spec:
              remediation:
                enabled: true
                maxConcurrent: 3
                maxFaultyNodes: 10%
              driver:
                upgradePolicy:
                  maxUnavailable: 2
            """,
            "p.yaml");
    assertThat(f.errors()).isEmpty();
    assertThat(f.policy().getSpec().remediation.maxConcurrent.getIntVal()).isEqualTo(3);
    assertThat(f.policy().getSpec().remediation.maxFaultyNodes.getStrVal()).isEqualTo("10%");
    assertThat(f.policy().getSpec().driver.upgradePolicy.maxUnavailable.getIntVal()).isEqualTo(2);
  }
}

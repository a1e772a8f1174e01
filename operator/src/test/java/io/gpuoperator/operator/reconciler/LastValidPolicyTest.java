package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LastValidPolicyTest {
  static ClusterPolicy policy(long generation, boolean valid) {
    ClusterPolicy p = new ClusterPolicy();
    p.getMetadata().setName("p");
    p.getMetadata().setUid("uid");
    p.getMetadata().setGeneration(generation);
    p.getMetadata().setLabels(java.util.Map.of("valid", Boolean.toString(valid)));
    return p;
  }

  @Test
  void anInvalidGenerationKeepsTheLastValidOneAndEachGenerationIsCheckedOnce() {
    AtomicInteger checks = new AtomicInteger();
    LastValidPolicy last =
        new LastValidPolicy(
            p -> {
              checks.incrementAndGet();
              return p.getMetadata().getLabels().get("valid").equals("true")
                  ? List.of()
                  : List.of(new Violation("spec.x", "bad"));
            });
    assertThat(last.of(policy(1, false))).isEmpty();
    ClusterPolicy two = policy(2, true);
    assertThat(last.of(two)).containsSame(two);
    assertThat(last.of(policy(2, true))).containsSame(two);
    assertThat(last.of(policy(3, false))).containsSame(two);
    assertThat(last.of(policy(3, false))).containsSame(two);
    assertThat(checks).hasValue(3);
    ClusterPolicy four = policy(4, true);
    assertThat(last.of(four)).containsSame(four);
  }
}

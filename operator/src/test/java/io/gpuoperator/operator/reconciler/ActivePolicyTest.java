package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.v1.ClusterPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

class ActivePolicyTest {
  static ClusterPolicy policy(String name, String created) {
    ClusterPolicy p = new ClusterPolicy();
    p.getMetadata().setName(name);
    p.getMetadata().setCreationTimestamp(created);
    return p;
  }

  @Test
  void oldestCreationTimestampWins() {
    var newer = policy("a-newer", "2026-01-02T00:00:00Z");
    var older = policy("z-older", "2026-01-01T00:00:00Z");
    assertThat(ActivePolicy.of(List.of(newer, older))).contains(older);
  }

  @Test
  void sameTimestampFallsBackToName() {
    var b = policy("b", "2026-01-01T00:00:00Z");
    var a = policy("a", "2026-01-01T00:00:00Z");
    assertThat(ActivePolicy.of(List.of(b, a))).contains(a);
  }

  @Test
  void policiesBeingDeletedDoNotCount() {
    var older = policy("older", "2026-01-01T00:00:00Z");
    older.getMetadata().setDeletionTimestamp("2026-01-03T00:00:00Z");
    var newer = policy("newer", "2026-01-02T00:00:00Z");
    assertThat(ActivePolicy.of(List.of(older, newer))).contains(newer);
    assertThat(ActivePolicy.of(List.of(older))).isEmpty();
  }
}

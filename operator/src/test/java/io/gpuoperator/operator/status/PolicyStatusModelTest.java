package io.gpuoperator.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicyStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyStatusModelTest {
  static final List<OperandReadiness> READY =
      List.of(
          OperandReadiness.noDaemonSet("pre-requisites"),
          new OperandReadiness("driver", true, 2, 2, null));

  @Test
  void readyWhenEveryOperandIsReady() {
    ClusterPolicyStatus s =
        PolicyStatusModel.applied(3, "gpu-operator", READY, 2, true, List.of(), null);
    assertThat(s.state).isEqualTo(State.READY);
    assertThat(s.observedGeneration).isEqualTo(3);
    assertThat(PolicyStatusModel.ready(s).getStatus()).isEqualTo("True");
    assertThat(PolicyStatusModel.ready(s).getReason()).isEqualTo(Conditions.RECONCILED);
    assertThat(s.operands).extracting(o -> o.name).containsExactly("pre-requisites", "driver");
    assertThat(s.operands.get(1).nodesReady).isEqualTo(2);
  }

  @Test
  void anOldServerIsAnErrorNamingTheNeededVersion() {
    String reason =
        io.gpuoperator.operator.cluster.KubernetesVersion.unsupportedReason("v1.28.4")
            .orElseThrow();
    ClusterPolicyStatus s = PolicyStatusModel.unsupportedServer(2, "ns", reason, null);
    assertThat(s.state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(s).getStatus()).isEqualTo("False");
    assertThat(PolicyStatusModel.ready(s).getReason())
        .isEqualTo(Conditions.UNSUPPORTED_KUBERNETES_VERSION);
    assertThat(PolicyStatusModel.ready(s).getMessage()).contains("v1.28.4").contains("v1.29");
    assertThat(s.conditions)
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo(Conditions.ERROR);
              assertThat(c.getStatus()).isEqualTo("True");
            });
  }

  @Test
  void nodesWithBothAllocatorsAreAnErrorNamingThem() {
    ClusterPolicyStatus one =
        PolicyStatusModel.applied(4, "ns", READY, 2, true, List.of("gpu-1"), null);
    assertThat(one.state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(one).getStatus()).isEqualTo("False");
    assertThat(PolicyStatusModel.ready(one).getReason())
        .isEqualTo(Conditions.CONFLICTING_GPU_ALLOCATORS);
    assertThat(PolicyStatusModel.ready(one).getMessage())
        .isEqualTo(
            "spec.devicePlugin and spec.draDriver would both serve the GPUs of node gpu-1;"
                + " nothing changed on it. Label each nvidia.com/gpu.deploy.device-plugin=false"
                + " (DRA) or nvidia.com/gpu.deploy.dra-driver=false (device plugin), or disable"
                + " one of the two");
    assertThat(one.conditions)
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo(Conditions.ERROR);
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo(Conditions.CONFLICTING_GPU_ALLOCATORS);
            });
    // The operands are still reported: the rest of the cluster was reconciled.
    assertThat(one.operands).hasSize(2);
    List<String> many = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      many.add("gpu-" + i);
    }
    assertThat(
            PolicyStatusModel.ready(PolicyStatusModel.applied(4, "ns", READY, 12, true, many, null))
                .getMessage())
        .startsWith("spec.devicePlugin and spec.draDriver would both serve the GPUs of 12 nodes:")
        .contains("gpu-9 and 2 more; nothing changed on them")
        .doesNotContain("gpu-10");
  }

  @Test
  void notReadyNamesTheOperandsAndWhy() {
    var operands =
        List.of(
            new OperandReadiness("driver", true, 2, 2, null),
            new OperandReadiness("device-plugin", false, 1, 2, "DaemonSet x: 1/2 nodes ready"));
    ClusterPolicyStatus s = PolicyStatusModel.applied(1, "ns", operands, 2, true, List.of(), null);
    assertThat(s.state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(s).getReason()).isEqualTo(Conditions.OPERAND_NOT_READY);
    assertThat(PolicyStatusModel.ready(s).getMessage())
        .contains("device-plugin")
        .doesNotContain("driver");
    assertThat(s.operands.get(1).reason).contains("1/2");
    assertThat(s.operands.get(1).state).isEqualTo(State.NOT_READY);
  }

  @Test
  void noGpuNodesIsReadyWithNfdAndAnErrorWithout() {
    var withNfd = PolicyStatusModel.applied(1, "ns", READY, 0, true, List.of(), null);
    assertThat(withNfd.state).isEqualTo(State.READY);
    assertThat(PolicyStatusModel.ready(withNfd).getReason()).isEqualTo(Conditions.NO_GPU_NODES);
    var withoutNfd = PolicyStatusModel.applied(1, "ns", READY, 0, false, List.of(), null);
    assertThat(withoutNfd.state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(withoutNfd).getReason())
        .isEqualTo(Conditions.NFD_LABELS_MISSING);
    assertThat(withoutNfd.conditions)
        .anyMatch(c -> c.getType().equals(Conditions.ERROR) && c.getStatus().equals("True"));
  }

  @Test
  void invalidAndIgnoredSayWhy() {
    var invalid = PolicyStatusModel.invalid(4, "ns", "spec.mig.strategy: bad", READY, null);
    assertThat(invalid.state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(invalid).getMessage()).contains("spec.mig.strategy");
    assertThat(PolicyStatusModel.ready(invalid).getReason()).isEqualTo(Conditions.RECONCILE_FAILED);
    var ignored = PolicyStatusModel.ignored(1, "ns", "first", null);
    assertThat(ignored.state).isEqualTo(State.IGNORED);
    assertThat(PolicyStatusModel.ready(ignored).getMessage()).contains("first");
  }

  @Test
  void sameStatusTwiceIsNotAChangeAndKeepsTransitionTime() throws Exception {
    var first = PolicyStatusModel.applied(1, "ns", READY, 2, true, List.of(), null);
    Thread.sleep(1100);
    var second = PolicyStatusModel.applied(1, "ns", READY, 2, true, List.of(), first);
    assertThat(PolicyStatusModel.sameAs(first, second)).isTrue();
    var changed = PolicyStatusModel.applied(2, "ns", READY, 2, true, List.of(), first);
    assertThat(PolicyStatusModel.sameAs(first, changed)).isFalse();
  }
}

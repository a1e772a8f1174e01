package io.gpuoperator.operator.upgrade;

import static io.gpuoperator.operator.upgrade.UpgradeState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.operator.labels.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class UpgradeRolloutTest {
  static UpgradeSettings settings(Consumer<UpgradePolicySpec> edit) {
    return NodeUpgradeTest.settings(edit);
  }

  /** Auto-upgrade with these two limits, the rest at their defaults. */
  static UpgradeSettings limits(int maxParallelUpgrades, IntOrString maxUnavailable) {
    return settings(
        p -> {
          p.maxParallelUpgrades = maxParallelUpgrades;
          p.maxUnavailable = maxUnavailable;
        });
  }

  /** No parallelism or availability limit: only the rollout {@code edit} describes holds back. */
  static UpgradeSettings unlimitedWith(Consumer<UpgradePolicySpec.Rollout> edit) {
    UpgradePolicySpec.Rollout rollout = new UpgradePolicySpec.Rollout();
    edit.accept(rollout);
    return settings(
        p -> {
          p.maxParallelUpgrades = 0;
          p.maxUnavailable = new IntOrString("100%");
          p.rollout = rollout;
        });
  }

  static UpgradeNode node(String name, UpgradeState state, boolean unschedulable, boolean ready) {
    return node(name, state, unschedulable, ready, Map.of());
  }

  static UpgradeNode node(
      String name,
      UpgradeState state,
      boolean unschedulable,
      boolean ready,
      Map<String, String> extraLabels) {
    Map<String, String> labels = new HashMap<>(extraLabels);
    labels.put(UpgradeKeys.STATE, state.label());
    DriverPod d =
        new DriverPod("ns", "drv-" + name, "u", false, true, "v1", "v2", "d1", "d2", null);
    return new UpgradeNode(name, labels, Map.of(), unschedulable, ready, d, true, true);
  }

  static List<UpgradeNode> required(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> node("n" + i, UPGRADE_REQUIRED, false, true))
        .toList();
  }

  @Test
  void maxParallelUpgradesCountsNodesAlreadyInProgress() {
    var nodes = new java.util.ArrayList<>(required(6));
    nodes.set(0, node("n0", POD_DELETION_REQUIRED, true, true));
    UpgradeSettings s = limits(2, new IntOrString("100%"));
    assertThat(UpgradeRollout.plan(nodes, s).startable()).containsExactly("n1");
  }

  @Test
  void zeroMaxParallelUpgradesMeansNoLimitButMaxUnavailableStillApplies() {
    UpgradeSettings s = limits(0, new IntOrString(3));
    assertThat(UpgradeRollout.plan(required(10), s).startable()).hasSize(3);
  }

  @Test
  void maxUnavailableCountsCordonedAndNotReadyNodesAndIsRoundedUp() {
    var nodes = new java.util.ArrayList<>(required(8));
    nodes.set(0, node("n0", UPGRADE_DONE, true, true)); // cordoned by someone
    nodes.set(1, node("n1", UPGRADE_DONE, false, false)); // NotReady
    // 8 * 0.3 = 2.4 -> 3
    UpgradeSettings s = limits(0, new IntOrString("30%"));
    assertThat(UpgradeRollout.plan(nodes, s).startable()).containsExactly("n2");
  }

  @Test
  void aNodeAlreadyCordonedStartsEvenWhenNoNodeMayBecomeUnavailable() {
    var nodes = new java.util.ArrayList<>(required(4));
    nodes.set(3, node("n3", UPGRADE_REQUIRED, true, true));
    UpgradeSettings s = limits(2, new IntOrString(1));
    // n3 is unavailable already: it uses the whole unavailable budget but costs nothing itself.
    assertThat(UpgradeRollout.plan(nodes, s).startable()).containsExactly("n3");
  }

  @Test
  void notReadyAndSkippedWaitingNodesDoNotStartAndDoNotHoldOthersBack() {
    var nodes = new java.util.ArrayList<>(required(4));
    nodes.set(0, node("n0", UPGRADE_REQUIRED, false, false));
    nodes.set(1, node("n1", UPGRADE_REQUIRED, false, true, Map.of(UpgradeKeys.SKIP, "true")));
    UpgradeSettings s = limits(1, new IntOrString("100%"));
    UpgradeRollout r = UpgradeRollout.plan(nodes, s);
    assertThat(r.startable()).containsExactly("n2");
    assertThat(r.status().message).contains("1 skipped");
  }

  @Test
  void canariesGoFirstAloneThenWavesInNameOrder() {
    UpgradeSettings s =
        unlimitedWith(
            r -> {
              r.canary = new UpgradePolicySpec.Canary();
              r.canary.nodeSelector = Map.of("pool", "canary");
              r.waveSize = new IntOrString(2);
            });
    var nodes = new java.util.ArrayList<>(required(5));
    nodes.set(3, node("n3", UPGRADE_REQUIRED, false, true, Map.of("pool", "canary")));
    UpgradeRollout canary = UpgradeRollout.plan(nodes, s);
    assertThat(canary.startable()).containsExactly("n3");
    assertThat(canary.status().wave).isZero();

    nodes.set(3, node("n3", UPGRADE_DONE, false, true, Map.of("pool", "canary")));
    UpgradeRollout wave1 = UpgradeRollout.plan(nodes, s);
    assertThat(wave1.startable()).containsExactlyInAnyOrder("n0", "n1");
    assertThat(wave1.status().wave).isEqualTo(1);

    nodes.set(0, node("n0", UPGRADE_DONE, false, true));
    nodes.set(1, node("n1", VALIDATION_REQUIRED, true, true));
    // n1 still runs: wave 2 waits.
    assertThat(UpgradeRollout.plan(nodes, s).startable()).isEmpty();
    nodes.set(1, node("n1", UPGRADE_FAILED, true, true));
    assertThat(UpgradeRollout.plan(nodes, s).startable()).containsExactlyInAnyOrder("n2", "n4");
  }

  @Test
  void aFailedCanaryOrTooManyFailedNodesHaltTheRollout() {
    UpgradeSettings s =
        unlimitedWith(
            r -> {
              r.canary = new UpgradePolicySpec.Canary();
              r.canary.count = 1;
              r.maxFailedNodes = 1;
            });
    var nodes = new java.util.ArrayList<>(required(5));
    nodes.set(0, node("n0", UPGRADE_FAILED, true, true));
    UpgradeRollout halted = UpgradeRollout.plan(nodes, s);
    assertThat(halted.startable()).isEmpty();
    assertThat(halted.status().phase).isEqualTo(UpgradeRollout.HALTED);
    assertThat(halted.status().message).contains("canary");

    nodes.set(0, node("n0", UPGRADE_DONE, false, true));
    nodes.set(1, node("n1", UPGRADE_FAILED, true, true));
    assertThat(UpgradeRollout.plan(nodes, s).startable()).isNotEmpty();
    nodes.set(2, node("n2", UPGRADE_FAILED, true, true));
    UpgradeRollout tooMany = UpgradeRollout.plan(nodes, s);
    assertThat(tooMany.startable()).isEmpty();
    assertThat(tooMany.status().message)
        .contains("2 nodes failed, more than rollout.maxFailedNodes 1");
  }

  @Test
  void nodesFailedForBeingNotReadyDoNotCountTowardsTheHalt() {
    UpgradeSettings s =
        settings(
            p -> {
              p.maxUnavailable = new IntOrString("100%");
              p.rollout = new UpgradePolicySpec.Rollout();
              p.rollout.maxFailedNodes = 0;
            });
    var nodes = new java.util.ArrayList<>(required(3));
    UpgradeNode n0 = node("n0", UPGRADE_FAILED, true, true);
    nodes.set(
        0,
        new UpgradeNode(
            "n0",
            n0.labels(),
            Map.of(UpgradeKeys.FAILURE_REASON, NodeUpgrade.NOT_READY_FAILURE + "x"),
            true,
            true,
            n0.driver(),
            true,
            true));
    assertThat(UpgradeRollout.plan(nodes, s).startable()).isNotEmpty();
  }

  @Test
  void statusCountsNodesByState() {
    var nodes =
        List.of(
            node("a", UPGRADE_DONE, false, true),
            node("b", UPGRADE_DONE, false, true),
            node("c", CORDON_REQUIRED, true, true),
            node("d", UPGRADE_REQUIRED, false, true),
            node("e", UPGRADE_FAILED, true, true));
    var st = UpgradeRollout.plan(nodes, settings(p -> {})).status();
    assertThat(st.phase).isEqualTo(UpgradeRollout.IN_PROGRESS);
    assertThat(List.of(st.done, st.inProgress, st.pending, st.failed)).containsExactly(2, 1, 1, 1);
    assertThat(st.message).contains("upgrading c").contains("failed: e");
    assertThat(UpgradeRollout.plan(nodes, UpgradeSettings.ofClusterPolicy(null)).status().phase)
        .isEqualTo(UpgradeRollout.DISABLED);
  }

  @Test
  void aMalformedPercentageHaltsWithTheFieldNamed() {
    UpgradeSettings s = settings(p -> p.maxUnavailable = new IntOrString("a lot"));
    UpgradeRollout r = UpgradeRollout.plan(required(2), s);
    assertThat(r.startable()).isEmpty();
    assertThat(r.status().message)
        .contains("upgradePolicy.maxUnavailable")
        .contains("'a lot'")
        .contains("25%");
    assertThatThrownBy(() -> UpgradeSettings.scaled(new IntOrString("-5%"), 4, "f"))
        .hasMessageContaining("f:");
  }

  @Test
  void settingsDefaultsAreTheOriginals() {
    UpgradeSettings cp = UpgradeSettings.ofClusterPolicy(new UpgradePolicySpec());
    assertThat(cp.autoUpgrade()).isFalse();
    assertThat(cp.maxParallel()).isEqualTo(1);
    assertThat(UpgradeSettings.scaled(cp.maxUnavailable(), 10, "x")).isEqualTo(3);
    assertThat(cp.podDeletionTimeout().toSeconds()).isEqualTo(300);
    assertThat(cp.validationTimeout().toSeconds()).isEqualTo(600);
    assertThat(UpgradeSettings.ofNvidiaDriver(null).autoUpgrade()).isTrue();
  }

  @Test
  void deployLabelOfTheValidatorDecidesWhetherValidationWaitsForIt() {
    UpgradeNode off =
        new UpgradeNode(
            "n",
            Map.of(Labels.deploy(UpgradeKeys.VALIDATOR_OPERAND), "false"),
            Map.of(),
            false,
            true,
            null,
            false,
            false);
    assertThat(off.validatorExpected()).isFalse();
  }
}

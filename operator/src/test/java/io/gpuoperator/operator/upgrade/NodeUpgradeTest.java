package io.gpuoperator.operator.upgrade;

import static io.gpuoperator.operator.upgrade.UpgradeState.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.operator.labels.Labels;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeUpgradeTest {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** Pods per node, evictions asked for and driver pods deleted. */
  static final class FakeActions extends RecordingEvictions {
    final Map<String, List<Pod>> pods = new HashMap<>();
    final List<String> deletedDrivers = new ArrayList<>();

    FakeActions() {
      super(NOW);
    }

    @Override
    public List<Pod> podsOn(String node, String labelSelector) {
      List<Pod> all = pods.getOrDefault(node, List.of());
      if (labelSelector == null) {
        return all;
      }
      String[] kv = labelSelector.split("=");
      return all.stream()
          .filter(p -> kv[1].equals(p.getMetadata().getLabels().get(kv[0])))
          .toList();
    }

    @Override
    public void deleteDriverPod(DriverPod pod) {
      deletedDrivers.add(pod.name());
    }
  }

  static Pod gpuPod(String name, boolean managed) {
    var b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("work")
            .withLabels(new HashMap<>(Map.of("app", "train")))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withNewResources()
            .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
            .endResources()
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .endStatus();
    if (managed) {
      b.editMetadata()
          .addNewOwnerReference()
          .withKind("ReplicaSet")
          .withName("rs")
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    return b.build();
  }

  static DriverPod driver(String revision, String latest, boolean ready) {
    return new DriverPod(
        "gpu-operator",
        "drv-" + revision,
        "uid-" + revision,
        false,
        ready,
        revision,
        latest,
        "d1",
        "d1",
        null);
  }

  static DriverPod driver(String revision, String latest, String digest, String latestDigest) {
    return new DriverPod(
        "gpu-operator",
        "drv-" + revision,
        "uid",
        false,
        true,
        revision,
        latest,
        digest,
        latestDigest,
        null);
  }

  static UpgradeNode node(UpgradeState state, DriverPod driver, Map<String, String> annotations) {
    Map<String, String> labels = new HashMap<>();
    if (state != UNKNOWN) {
      labels.put(UpgradeKeys.STATE, state.label());
    }
    for (String c : UpgradeKeys.GPU_CLIENTS) {
      labels.put(Labels.deploy(c), "true");
    }
    return new UpgradeNode("n1", labels, annotations, false, true, driver, true, true);
  }

  /** The annotation saying a step started {@code seconds} before NOW. */
  static Map<String, String> startedAgo(String key, long seconds) {
    return Map.of(key, String.valueOf(NOW.getEpochSecond() - seconds));
  }

  /** n1 deleting its GPU pods for a driver pod out of date, since {@code seconds} before NOW. */
  static UpgradeNode deletingPods(long seconds) {
    return node(
        POD_DELETION_REQUIRED,
        driver("a", "b", true),
        startedAgo(UpgradeKeys.POD_DELETION_START, seconds));
  }

  /** n1 cordoned and Ready, its validator pod present and ready. */
  static UpgradeNode cordoned(
      Map<String, String> labels, Map<String, String> annotations, DriverPod driver) {
    return new UpgradeNode("n1", labels, annotations, true, true, driver, true, true);
  }

  static UpgradeSettings settings(java.util.function.Consumer<UpgradePolicySpec> edit) {
    UpgradePolicySpec p = new UpgradePolicySpec();
    p.autoUpgrade = true;
    edit.accept(p);
    return UpgradeSettings.ofClusterPolicy(p);
  }

  final FakeActions actions = new FakeActions();
  NodeUpgrade machine = new NodeUpgrade(settings(p -> {}), actions, NOW);

  @Test
  void aFreshNodeWithACurrentDriverIsDoneAndABehindOneRequiresAnUpgrade() {
    assertThat(machine.step(node(UNKNOWN, driver("a", "a", true), Map.of()), false).to())
        .isEqualTo(UPGRADE_DONE);
    assertThat(machine.step(node(UPGRADE_DONE, driver("a", "b", true), Map.of()), false).to())
        .isEqualTo(UPGRADE_REQUIRED);
    assertThat(
            machine
                .step(
                    node(
                        UPGRADE_DONE,
                        driver("a", "a", true),
                        Map.of(UpgradeKeys.REQUESTED, "true")),
                    false)
                .to())
        .isEqualTo(UPGRADE_REQUIRED);
    // Revisions not known yet: no verdict.
    assertThat(machine.step(node(UNKNOWN, driver("a", null, true), Map.of()), false).moves())
        .isFalse();
  }

  @Test
  void aNodeSeenFirstWithADriverThatNeverBecameReadyIsOnlyRestarted() {
    Step s = machine.step(node(UNKNOWN, driver("a", "b", false), Map.of()), false);
    assertThat(s.to()).isEqualTo(UPGRADE_REQUIRED);
    assertThat(s.annotations()).containsEntry(UpgradeKeys.RESTART_ONLY, "true");
    UpgradeNode n = node(UNKNOWN, driver("a", "b", false), Map.of()).with(s);
    assertThat(machine.step(n, true).to()).isEqualTo(POD_RESTART_REQUIRED);
    // Once the upgrade knows the node, a driver that is down gets the full treatment.
    assertThat(
            machine
                .step(node(UPGRADE_DONE, driver("a", "b", false), Map.of()), false)
                .annotations())
        .containsEntry(UpgradeKeys.RESTART_ONLY, null);
  }

  @Test
  void aRequiredNodeStartsOnlyWithASlotAndRemembersWhetherItWasCordonedBefore() {
    UpgradeNode n = node(UPGRADE_REQUIRED, driver("a", "b", "d1", "d2"), Map.of());
    assertThat(machine.step(n, false).moves()).isFalse();
    Step s = machine.step(n, true);
    assertThat(s.to()).isEqualTo(CORDON_REQUIRED);
    assertThat(s.annotations())
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "false")
        .containsEntry(UpgradeKeys.TARGET_REVISION, "b");

    UpgradeNode cordoned = cordoned(n.labels(), Map.of(), n.driver());
    assertThat(machine.step(cordoned, true).annotations())
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, "true");
  }

  @Test
  void theSameDriverDigestRestartsThePodInPlaceWithoutCordonOrEviction() {
    UpgradeNode n = node(UPGRADE_REQUIRED, driver("a", "b", "d1", "d1"), Map.of());
    Step s = machine.step(n, true);
    assertThat(s.to()).isEqualTo(POD_RESTART_REQUIRED);
    assertThat(s.unschedulable()).isNull();
    assertThat(s.annotations()).containsEntry(UpgradeKeys.RESTART_ONLY, "true");
    n = n.with(s);
    // No GPU client is paused; the old driver pod is deleted right away.
    Step restart = machine.step(n, false);
    assertThat(restart.labels()).isEmpty();
    assertThat(actions.deletedDrivers).containsExactly("drv-a");
    assertThat(actions.evicted).isEmpty();
  }

  @Test
  void gpuPodsAreEvictedOnceEachAndTheNodeMovesOnWhenTheyAreGone() {
    actions.pods.put(
        "n1", new ArrayList<>(List.of(gpuPod("train-1", true), gpuPod("train-2", true))));
    Pod cpu = gpuPod("web", true);
    cpu.getSpec().getContainers().get(0).getResources().setLimits(Map.of());
    actions.pods.get("n1").add(cpu);
    UpgradeNode n = deletingPods(0);
    Step first = machine.step(n, false);
    assertThat(first.moves()).isFalse();
    assertThat(first.waiting()).contains("work/train-1");
    assertThat(actions.evicted).containsExactly("train-1", "train-2");
    // A second pass while they terminate asks for nothing again.
    machine.step(n, false);
    assertThat(actions.evicted).containsExactly("train-1", "train-2");
    actions.pods.put("n1", List.of(cpu));
    Step done = machine.step(n, false);
    assertThat(done.to()).isEqualTo(POD_RESTART_REQUIRED);
  }

  @Test
  void aDisruptionBudgetHoldsThePodUntilTheTimeoutThenTheNodeFails() {
    actions.pods.put("n1", List.of(gpuPod("db-0", true)));
    actions.blocked.add("db-0");
    UpgradeNode n = deletingPods(100);
    Step waiting = machine.step(n, false);
    assertThat(waiting.moves()).isFalse();
    assertThat(waiting.waiting()).contains("PodDisruptionBudget").contains("work/db-0");

    NodeUpgrade later = new NodeUpgrade(settings(p -> {}), actions, NOW.plusSeconds(300));
    Step failed = later.step(n, false);
    assertThat(failed.to()).isEqualTo(UPGRADE_FAILED);
    assertThat(failed.failure()).contains("after 300 s").contains("work/db-0");
    // Paused clients come back on failure; here none were paused.
    assertThat(failed.annotations()).containsKey(UpgradeKeys.FAILURE_REASON);
  }

  @Test
  void anUnmanagedGpuPodFailsTheNodeUnlessForceIsSet() {
    actions.pods.put("n1", List.of(gpuPod("bare", false)));
    UpgradeNode n = deletingPods(0);
    Step s = machine.step(n, false);
    assertThat(s.to()).isEqualTo(UPGRADE_FAILED);
    assertThat(s.failure()).contains("work/bare").contains("podDeletion.force");
    assertThat(actions.evicted).isEmpty();

    NodeUpgrade forced =
        new NodeUpgrade(
            settings(
                p -> {
                  p.podDeletion = new UpgradePolicySpec.PodDeletion();
                  p.podDeletion.force = true;
                }),
            actions,
            NOW);
    assertThat(forced.step(n, false).moves()).isFalse();
    assertThat(actions.evicted).containsExactly("bare");
  }

  @Test
  void podRestartPausesGpuClientsWaitsForTheValidatorToGoThenDeletesTheDriverPod() {
    UpgradeNode n =
        node(
            POD_RESTART_REQUIRED, driver("a", "b", true), startedAgo(UpgradeKeys.RESTART_START, 0));
    Step pause = machine.step(n, false);
    assertThat(pause.labels())
        .containsEntry(Labels.deploy("device-plugin"), UpgradeKeys.PAUSED)
        .containsEntry(Labels.deploy("operator-validator"), UpgradeKeys.PAUSED)
        .doesNotContainKey(Labels.deploy("driver"));
    n = n.with(pause);
    assertThat(machine.step(n, false).waiting()).contains("GPU clients");
    assertThat(actions.deletedDrivers).isEmpty();

    UpgradeNode gone =
        new UpgradeNode("n1", n.labels(), n.annotations(), true, true, n.driver(), false, false);
    machine.step(gone, false);
    assertThat(actions.deletedDrivers).containsExactly("drv-a");

    UpgradeNode newPod =
        new UpgradeNode(
            "n1", n.labels(), n.annotations(), true, true, driver("b", "b", false), false, false);
    Step validate = machine.step(newPod, false);
    assertThat(validate.to()).isEqualTo(VALIDATION_REQUIRED);
    assertThat(validate.labels()).containsEntry(Labels.deploy("device-plugin"), "true");
  }

  @Test
  void aUserPauseOrMigManagerPauseIsNeverTouched() {
    Map<String, String> labels = new HashMap<>(node(POD_RESTART_REQUIRED, null, Map.of()).labels());
    labels.put(Labels.deploy("device-plugin"), "false");
    labels.put(Labels.deploy("mig-manager"), "paused-for-mig-change");
    UpgradeNode n =
        cordoned(labels, startedAgo(UpgradeKeys.RESTART_START, 0), driver("a", "b", true));
    Step pause = machine.step(n, false);
    assertThat(pause.labels())
        .doesNotContainKey(Labels.deploy("device-plugin"))
        .doesNotContainKey(Labels.deploy("mig-manager"))
        .containsKey(Labels.deploy("gpu-feature-discovery"));
  }

  @Test
  void validationNeedsTheNewDriverAndTheValidatorReadyAndTimesOutWithTheReason() {
    Map<String, String> a = startedAgo(UpgradeKeys.VALIDATION_START, 0);
    UpgradeNode notReady =
        new UpgradeNode(
            "n1",
            node(VALIDATION_REQUIRED, null, Map.of()).labels(),
            a,
            true,
            true,
            driver("b", "b", true),
            true,
            false);
    assertThat(machine.step(notReady, false).waiting()).contains("validator pod not ready");
    NodeUpgrade late = new NodeUpgrade(settings(p -> {}), actions, NOW.plusSeconds(601));
    Step failed = late.step(notReady, false);
    assertThat(failed.to()).isEqualTo(UPGRADE_FAILED);
    assertThat(failed.failure()).contains("validation timed out after 600 s");

    UpgradeNode ok = cordoned(notReady.labels(), a, driver("b", "b", true));
    assertThat(machine.step(ok, false).to()).isEqualTo(UNCORDON_REQUIRED);
  }

  @Test
  void aCrashLoopingDriverFailsValidationWithoutWaitingForTheTimeout() {
    DriverPod crashing =
        new DriverPod(
            "ns",
            "drv",
            "u",
            false,
            false,
            "b",
            "b",
            null,
            null,
            NodeUpgrade.crashing(5, "CrashLoopBackOff"));
    UpgradeNode n =
        new UpgradeNode(
            "n1",
            node(VALIDATION_REQUIRED, null, Map.of()).labels(),
            startedAgo(UpgradeKeys.VALIDATION_START, 0),
            true,
            true,
            crashing,
            true,
            false);
    Step s = machine.step(n, false);
    assertThat(s.to()).isEqualTo(UPGRADE_FAILED);
    assertThat(s.failure()).contains("5 restarts");
  }

  @Test
  void uncordonLeavesANodeTheUserHadCordonedCordoned() {
    UpgradeNode user =
        cordoned(
            Map.of(UpgradeKeys.STATE, UNCORDON_REQUIRED.label()),
            Map.of(UpgradeKeys.INITIAL_UNSCHEDULABLE, "true"),
            driver("b", "b", true));
    Step s = machine.step(user, false);
    assertThat(s.to()).isEqualTo(UPGRADE_DONE);
    assertThat(s.unschedulable()).isNull();
    assertThat(s.annotations()).containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, null);

    UpgradeNode ours =
        cordoned(user.labels(), Map.of(UpgradeKeys.INITIAL_UNSCHEDULABLE, "false"), user.driver());
    assertThat(machine.step(ours, false).unschedulable()).isFalse();
  }

  @Test
  void aNodeGoingNotReadyMidUpgradeFailsAtOnceAndRetriesWhenReadyAgain() {
    UpgradeNode down =
        new UpgradeNode(
            "n1",
            Map.of(UpgradeKeys.STATE, POD_DELETION_REQUIRED.label()),
            Map.of(),
            true,
            false,
            driver("a", "b", true),
            true,
            true);
    Step s = machine.step(down, false);
    assertThat(s.to()).isEqualTo(UPGRADE_FAILED);
    assertThat(s.failure()).startsWith(NodeUpgrade.NOT_READY_FAILURE);

    UpgradeNode back =
        cordoned(
            Map.of(UpgradeKeys.STATE, UPGRADE_FAILED.label()),
            Map.of(UpgradeKeys.FAILURE_REASON, s.failure(), UpgradeKeys.TARGET_REVISION, "b"),
            driver("a", "b", true));
    assertThat(machine.step(back, false).to()).isEqualTo(UPGRADE_REQUIRED);
  }

  @Test
  void aFailedNodeRecoversWhenItsDriverValidatesAndRetriesForANewerDriver() {
    Map<String, String> failed =
        Map.of(
            UpgradeKeys.FAILURE_REASON, "validation timed out", UpgradeKeys.TARGET_REVISION, "b");
    UpgradeNode stuck =
        cordoned(
            Map.of(UpgradeKeys.STATE, UPGRADE_FAILED.label()), failed, driver("b", "b", false));
    assertThat(machine.step(stuck, false).moves()).isFalse();
    UpgradeNode fixed = cordoned(stuck.labels(), failed, driver("b", "b", true));
    assertThat(machine.step(fixed, false).to()).isEqualTo(UNCORDON_REQUIRED);
    UpgradeNode newer = cordoned(stuck.labels(), failed, driver("b", "c", false));
    assertThat(machine.step(newer, false).to()).isEqualTo(UPGRADE_REQUIRED);
  }

  @Test
  void waitForJobsWaitsForMatchingPodsUntilTheTimeout() {
    java.util.function.Consumer<UpgradePolicySpec> waitForTraining =
        p -> {
          p.waitForCompletion = new UpgradePolicySpec.WaitForCompletion();
          p.waitForCompletion.podSelector = "app=train";
          p.waitForCompletion.timeoutSeconds = 60;
        };
    NodeUpgrade waiting = new NodeUpgrade(settings(waitForTraining), actions, NOW);
    actions.pods.put("n1", List.of(gpuPod("job", true)));
    UpgradeNode n =
        node(
            WAIT_FOR_JOBS_REQUIRED,
            driver("a", "b", true),
            startedAgo(UpgradeKeys.WAIT_FOR_JOBS_START, 0));
    assertThat(waiting.step(n, false).waiting()).contains("work/job");
    NodeUpgrade late =
        new NodeUpgrade(settings(waitForTraining), actions, NOW.plus(Duration.ofSeconds(61)));
    assertThat(late.step(n, false).to()).isEqualTo(POD_DELETION_REQUIRED);
  }

  @Test
  void aMissingStartTimeIsRecordedSoThatTheTimeoutStillApplies() {
    actions.pods.put("n1", List.of(gpuPod("x", true)));
    Step s = machine.step(node(POD_DELETION_REQUIRED, driver("a", "b", true), Map.of()), false);
    assertThat(s.to()).isEqualTo(POD_DELETION_REQUIRED);
    assertThat(s.annotations())
        .containsEntry(UpgradeKeys.POD_DELETION_START, String.valueOf(NOW.getEpochSecond()));
    assertThat(actions.evicted).isEmpty();
  }

  @Test
  void abandoningGivesBackTheCordonAndPausedClientsAndRemovesTheUpgradeKeys() {
    Map<String, String> labels = new HashMap<>();
    labels.put(UpgradeKeys.STATE, POD_RESTART_REQUIRED.label());
    labels.put(Labels.deploy("device-plugin"), UpgradeKeys.PAUSED);
    UpgradeNode n =
        new UpgradeNode(
            "n1",
            labels,
            Map.of(UpgradeKeys.INITIAL_UNSCHEDULABLE, "false", UpgradeKeys.ENABLED, "true"),
            true,
            true,
            null,
            false,
            false);
    Step s = NodeUpgrade.abandon(n);
    assertThat(s.to()).isEqualTo(UNKNOWN);
    assertThat(s.unschedulable()).isFalse();
    assertThat(s.labels()).containsEntry(Labels.deploy("device-plugin"), "true");
    assertThat(s.annotations())
        .containsEntry(UpgradeKeys.ENABLED, null)
        .containsEntry(UpgradeKeys.INITIAL_UNSCHEDULABLE, null);
    assertThat(NodePatch.of(s))
        .contains("\"" + UpgradeKeys.STATE + "\":null")
        .contains("\"unschedulable\":null");
    assertThat(
            NodeUpgrade.abandon(
                new UpgradeNode("n2", Map.of(), Map.of(), false, true, null, false, false)))
        .isNull();
  }
}

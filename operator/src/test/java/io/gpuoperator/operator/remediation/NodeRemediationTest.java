package io.gpuoperator.operator.remediation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.operator.upgrade.DriverPod;
import io.gpuoperator.operator.upgrade.RecordingEvictions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeRemediationTest {
  static final Instant NOW = Instant.parse("2026-12-06T03:00:00Z");
  static final RemediationSettings ON =
      new RemediationSettings(
          true,
          false,
          new IntOrString(1),
          new IntOrString("10%"),
          Duration.ofSeconds(600),
          Duration.ofSeconds(300));

  /** The pods of one node; records evictions, a PodDisruptionBudget refuses the blocked ones. */
  static final class Pods extends RecordingEvictions {
    final List<Pod> pods = new ArrayList<>();

    Pods() {
      super(NOW);
    }

    @Override
    public List<Pod> podsOn(String node, String labelSelector) {
      return List.copyOf(pods);
    }

    @Override
    public void deleteDriverPod(DriverPod pod) {
      throw new AssertionError("remediation never deletes a driver pod");
    }
  }

  static Pod pod(String name, String resource, boolean daemonSet) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("work")
        .addNewOwnerReference()
        .withKind(daemonSet ? "DaemonSet" : "ReplicaSet")
        .withName("owner")
        .withController(true)
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withNewResources()
        .withLimits(Map.of(resource, new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .endStatus()
        .build();
  }

  /** A mutable node that steps are applied to, as the API server would apply the patch. */
  static final class N {
    String name = "gpu-1";
    Map<String, String> labels = new HashMap<>(Map.of("nvidia.com/gpu.present", "true"));
    Map<String, String> annotations = new HashMap<>();
    List<Taint> taints =
        new ArrayList<>(
            List.of(new TaintBuilder().withKey("other").withEffect("NoSchedule").build()));
    boolean unschedulable;
    boolean ready = true;
    String fault;
    NodeCondition reset;
    boolean validatorReady = true;

    RemediationNode view() {
      return new RemediationNode(
          name,
          Map.copyOf(labels),
          Map.copyOf(annotations),
          List.copyOf(taints),
          unschedulable,
          ready,
          fault,
          fault == null ? null : "GPU-1: XID 48",
          reset,
          1,
          validatorReady);
    }

    void apply(RemediationStep s) {
      if (s.to() == RemediationState.NONE) {
        labels.remove(RemediationKeys.STATE);
      } else if (s.to() != null) {
        labels.put(RemediationKeys.STATE, s.to().label());
      }
      s.annotations()
          .forEach(
              (k, v) -> {
                if (v == null) {
                  annotations.remove(k);
                } else {
                  annotations.put(k, v);
                }
              });
      if (s.unschedulable() != null) {
        unschedulable = s.unschedulable();
      }
      if (s.taint() != null) {
        taints.removeIf(t -> t.getKey().equals(RemediationKeys.TAINT));
        if (!s.taint().isEmpty()) {
          taints.add(
              new TaintBuilder()
                  .withKey(RemediationKeys.TAINT)
                  .withValue(s.taint())
                  .withEffect("NoSchedule")
                  .build());
        }
      }
    }

    RemediationState state() {
      return view().state();
    }
  }

  /** Steps the node once at {@code now} and applies the step; returns it. */
  static RemediationStep step(N n, Pods pods, Instant now, boolean mayStart, boolean breaker) {
    RemediationStep s = new NodeRemediation(ON, pods, now).step(n.view(), mayStart, breaker);
    n.apply(s);
    return s;
  }

  static RemediationStep step(N n, Pods pods) {
    return step(n, pods, NOW, true, false);
  }

  static NodeCondition answer(String token, boolean done) {
    return new NodeConditionBuilder()
        .withType(GpuFaultContract.RESET_CONDITION)
        .withStatus(done ? "True" : "False")
        .withReason(done ? GpuFaultContract.RESET_DONE : GpuFaultContract.RESET_FAILED)
        .withMessage(GpuFaultContract.answerPrefix(token) + " GPU 0 reset")
        .build();
  }

  @Test
  void aFatalXidClimbsTheLadderAndTheNodeComesBackAsItWas() {
    N n = new N();
    Pods pods = new Pods();
    Pod train = pod("train", "nvidia.com/gpu", false);
    Pod plugin = pod("device-plugin", "nvidia.com/gpu", true);
    Pod web = pod("web", "cpu", false);
    pods.pods.addAll(List.of(train, plugin, web));

    // Healthy: nothing.
    assertThat(step(n, pods).moves()).isFalse();

    n.fault = GpuFaultContract.ECC;
    RemediationStep tainted = step(n, pods);
    assertThat(tainted.to()).isEqualTo(RemediationState.TAINTED);
    assertThat(tainted.warning()).isTrue();
    assertThat(tainted.message()).contains("nvidia.com/gpu-fault=GpuEccError:NoSchedule", "XID 48");
    assertThat(n.taints).extracting(Taint::getKey).containsExactly("other", "nvidia.com/gpu-fault");
    assertThat(n.annotations).containsEntry(RemediationKeys.INITIAL_UNSCHEDULABLE, "false");
    assertThat(n.unschedulable).isFalse();

    assertThat(step(n, pods).to()).isEqualTo(RemediationState.DRAINING);
    assertThat(n.unschedulable).isTrue();

    // Only the GPU pod that is not a DaemonSet's is evicted; while it terminates, nothing more.
    RemediationStep evicting = step(n, pods);
    assertThat(evicting.moves()).isFalse();
    assertThat(evicting.waiting()).contains("work/train");
    assertThat(pods.evicted).containsExactly("train");
    assertThat(step(n, pods).moves()).isFalse();
    assertThat(pods.evicted).as("a terminating pod is never evicted again").hasSize(1);

    pods.pods.remove(train);
    RemediationStep reset = step(n, pods);
    assertThat(reset.to()).isEqualTo(RemediationState.RESET_REQUESTED);
    String token = n.annotations.get(RemediationKeys.RESET_REQUESTED);
    assertThat(token).isEqualTo(String.valueOf(NOW.getEpochSecond()));

    // An answer to an older request counts for nothing; the agent's answer with the fault gone
    // moves on.
    n.reset = answer("17", false);
    assertThat(step(n, pods).moves()).isFalse();
    n.reset = answer(token, true);
    n.fault = null;
    assertThat(step(n, pods).to()).isEqualTo(RemediationState.VALIDATING);
    assertThat(n.annotations).doesNotContainKey(RemediationKeys.RESET_REQUESTED);

    n.validatorReady = false;
    assertThat(step(n, pods).moves()).isFalse();
    n.validatorReady = true;
    RemediationStep back = step(n, pods);
    assertThat(back.to()).isEqualTo(RemediationState.RECOVERED);
    assertThat(back.reason()).isEqualTo("GpuNodeBackInService");
    assertThat(n.unschedulable).isFalse();
    assertThat(n.taints).extracting(Taint::getKey).containsExactly("other");
    assertThat(n.annotations).containsOnlyKeys(RemediationKeys.RECOVERED_AT);
  }

  @Test
  void aHumansCordonIsKeptAndADisruptionBudgetIsWaitedFor() {
    N n = new N();
    n.unschedulable = true;
    Pods pods = new Pods();
    pods.pods.add(pod("train", "nvidia.com/gpu", false));
    pods.blocked.add("train");
    n.fault = GpuFaultContract.XID;
    step(n, pods);
    step(n, pods);
    RemediationStep blocked = step(n, pods);
    assertThat(blocked.moves()).isFalse();
    assertThat(blocked.waiting()).contains("PodDisruptionBudget");
    assertThat(n.state()).isEqualTo(RemediationState.DRAINING);
    pods.pods.clear();
    step(n, pods);
    n.fault = null;
    step(n, pods);
    assertThat(step(n, pods).to()).isEqualTo(RemediationState.RECOVERED);
    assertThat(n.unschedulable).as("cordoned by a human before the fault").isTrue();
  }

  @Test
  void aResetThatFailsOrNeverAnswersAsksForAReboot() {
    N n = new N();
    Pods pods = new Pods();
    n.fault = GpuFaultContract.LOST;
    step(n, pods);
    step(n, pods);
    step(n, pods);
    assertThat(n.state()).isEqualTo(RemediationState.RESET_REQUESTED);
    String token = n.annotations.get(RemediationKeys.RESET_REQUESTED);
    n.reset = answer(token, false);
    RemediationStep reboot = step(n, pods);
    assertThat(reboot.to()).isEqualTo(RemediationState.REBOOT_REQUIRED);
    assertThat(reboot.warning()).isTrue();
    assertThat(n.annotations.get(RemediationKeys.REBOOT_REQUESTED)).contains("GPU reset failed");
    assertThat(step(n, pods).moves()).isFalse();
    n.fault = null;
    assertThat(step(n, pods).to()).isEqualTo(RemediationState.VALIDATING);
    assertThat(n.annotations).doesNotContainKey(RemediationKeys.REBOOT_REQUESTED);

    // No answer at all: a reboot once the reset timeout has passed.
    N silent = new N();
    silent.fault = GpuFaultContract.XID;
    step(silent, pods);
    step(silent, pods);
    step(silent, pods);
    RemediationStep waiting = step(silent, pods, NOW.plusSeconds(299), true, false);
    assertThat(waiting.moves()).isFalse();
    assertThat(waiting.recheck()).isEqualTo(Duration.ofSeconds(1));
    assertThat(step(silent, pods, NOW.plusSeconds(300), true, false).to())
        .isEqualTo(RemediationState.REBOOT_REQUIRED);
  }

  @Test
  void aThermalSlowdownIsOnlyTaintedAndTheBreakerHoldsNewDrains() {
    N hot = new N();
    Pods pods = new Pods();
    pods.pods.add(pod("train", "nvidia.com/gpu", false));
    hot.fault = GpuFaultContract.THERMAL;
    step(hot, pods);
    assertThat(step(hot, pods).moves()).isFalse();
    assertThat(hot.unschedulable).isFalse();
    assertThat(pods.evicted).isEmpty();
    hot.fault = null;
    step(hot, pods);
    assertThat(step(hot, pods).to()).isEqualTo(RemediationState.RECOVERED);

    N held = new N();
    held.fault = GpuFaultContract.XID;
    step(held, pods);
    RemediationStep stays = step(held, pods, NOW, true, true);
    assertThat(stays.moves()).isFalse();
    assertThat(stays.waiting()).contains("circuit breaker");
    assertThat(held.unschedulable).isFalse();
    N fresh = new N();
    fresh.fault = GpuFaultContract.XID;
    assertThat(step(fresh, pods, NOW, true, true).moves()).isFalse();
    assertThat(step(fresh, pods, NOW, false, false).waiting()).contains("remediation slot");
  }

  @Test
  void aNodeThatCameBackCoolsDownBeforeItsNextFaultIsActedOn() {
    N n = new N();
    Pods pods = new Pods();
    n.labels.put(RemediationKeys.STATE, RemediationState.RECOVERED.label());
    n.annotations.put(RemediationKeys.RECOVERED_AT, String.valueOf(NOW.getEpochSecond() - 100));
    n.fault = GpuFaultContract.XID;
    RemediationStep cooling = step(n, pods);
    assertThat(cooling.moves()).isFalse();
    assertThat(cooling.recheck()).isEqualTo(Duration.ofSeconds(500));
    assertThat(step(n, pods, NOW.plusSeconds(500), true, false).to())
        .isEqualTo(RemediationState.TAINTED);
    assertThat(n.annotations).doesNotContainKey(RemediationKeys.RECOVERED_AT);
  }

  @Test
  void turnedOffItGivesBackOnlyWhatItTook() {
    N ours = new N();
    Pods pods = new Pods();
    ours.fault = GpuFaultContract.XID;
    step(ours, pods);
    step(ours, pods);
    ours.apply(NodeRemediation.abandon(ours.view()));
    assertThat(ours.unschedulable).isFalse();
    assertThat(ours.taints).extracting(Taint::getKey).containsExactly("other");
    assertThat(ours.labels).doesNotContainKey(RemediationKeys.STATE);
    assertThat(ours.annotations).isEmpty();
    assertThat(NodeRemediation.abandon(ours.view())).isNull();

    N humans = new N();
    humans.unschedulable = true;
    humans.fault = GpuFaultContract.XID;
    step(humans, pods);
    step(humans, pods);
    humans.apply(NodeRemediation.abandon(humans.view()));
    assertThat(humans.unschedulable).isTrue();
  }

  @Test
  void theBudgetCountsFaultyNodesAgainstTheBreakerAndNodesOnTheLadderAgainstMaxConcurrent() {
    List<RemediationNode> nodes = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      N n = new N();
      n.name = "gpu-" + i;
      n.fault = i < 2 ? GpuFaultContract.XID : null;
      if (i == 0) {
        n.labels.put(RemediationKeys.STATE, RemediationState.DRAINING.label());
      }
      nodes.add(n.view());
    }
    var settings =
        new RemediationSettings(
            true,
            false,
            new IntOrString("10%"),
            new IntOrString("10%"),
            Duration.ZERO,
            Duration.ZERO);
    RemediationBudget b = RemediationBudget.of(settings, nodes);
    assertThat(b.breakerOpen()).isFalse();
    assertThat(b.concurrent()).isEqualTo(2);
    assertThat(b.startable()).isEqualTo(1);

    List<RemediationNode> many = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      N n = new N();
      n.name = "gpu-" + i;
      n.fault = i < 3 ? GpuFaultContract.XID : null;
      many.add(n.view());
    }
    RemediationBudget open = RemediationBudget.of(settings, many);
    assertThat(open.faultyLimit()).isEqualTo(2);
    assertThat(open.breakerOpen()).isTrue();
    assertThat(open.startable()).isZero();
    assertThat(open.describe()).startsWith("3 of 20 GPU nodes have a GPU fault");
  }

  @Test
  void thePatchKeepsOtherTaintsAndGuardsThemWithTheResourceVersion() {
    N n = new N();
    n.fault = GpuFaultContract.XID;
    RemediationStep s = new NodeRemediation(ON, new Pods(), NOW).step(n.view(), true, false);
    String patch = RemediationPatch.of(n.view(), s, "42");
    assertThat(patch)
        .contains("\"resourceVersion\":\"42\"")
        .contains("\"key\":\"other\"")
        .contains(
            "{\"key\":\"nvidia.com/gpu-fault\",\"value\":\"GpuXidError\",\"effect\":\"NoSchedule\"}")
        .contains("\"nvidia.com/gpu-remediation-state\":\"tainted\"");
  }
}

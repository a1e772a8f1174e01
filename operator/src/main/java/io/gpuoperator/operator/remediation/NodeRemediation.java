package io.gpuoperator.operator.remediation;

import static io.gpuoperator.operator.remediation.RemediationState.*;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.upgrade.NodeActions;
import io.gpuoperator.operator.upgrade.PodEvictions;
import io.gpuoperator.operator.upgrade.UpgradePods;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The per-node remediation ladder: a GPU fault condition makes the node tainted, then (for the
 * classes {@link FaultLadder} drains) cordoned with its GPU pods evicted through policy/v1, then a
 * GPU reset asked of the node's GPU agent, then, when the reset fails or does not answer, a reboot
 * asked of an external agent; once the condition clears, the node is Ready and its validator
 * passes, it is back in service (untainted, uncordoned unless someone else had cordoned it) and
 * cools down. One call looks at one node once and returns its next {@link RemediationStep}; the
 * caller writes it (state label, annotations, taint and cordon in one patch) and may call again at
 * once. Everything it remembers is on the node, so a restarted operator carries on, and eviction is
 * asked only for pods that are not terminating yet, so no pod is evicted twice.
 */
public record NodeRemediation(RemediationSettings settings, NodeActions actions, Instant now) {
  /**
   * How often a node waiting on something not watched (pods terminating, a budget) is looked at.
   */
  static final Duration POLL = Duration.ofSeconds(2);

  /**
   * The node's next step.
   *
   * @param mayStart the budget lets this node start remediation now
   * @param breakerOpen the circuit breaker is open: no node starts draining
   */
  public RemediationStep step(RemediationNode n, boolean mayStart, boolean breakerOpen) {
    return switch (n.state()) {
      case NONE, RECOVERED -> start(n, mayStart && !breakerOpen);
      case TAINTED -> afterTaint(n, breakerOpen);
      case DRAINING -> drain(n);
      case RESET_REQUESTED -> awaitReset(n);
      case REBOOT_REQUIRED -> awaitReboot(n);
      case VALIDATING -> validate(n);
    };
  }

  /** Whether a faulty node is still cooling down from its last recovery, and until when. */
  public Instant coolingUntil(RemediationNode n) {
    Instant back = n.time(RemediationKeys.RECOVERED_AT);
    if (n.state() != RECOVERED || back == null) {
      return null;
    }
    Instant until = back.plus(settings.coolDown());
    return now.isBefore(until) ? until : null;
  }

  private RemediationStep start(RemediationNode n, boolean mayStart) {
    if (!n.faulty()) {
      return RemediationStep.idle();
    }
    Instant until = coolingUntil(n);
    if (until != null) {
      return RemediationStep.stay(
          Duration.between(now, until), n.fault() + ": cooling down until " + until);
    }
    if (!mayStart) {
      return RemediationStep.stay(null, n.fault() + ": waiting for a remediation slot");
    }
    String taint = RemediationKeys.TAINT + "=" + n.fault() + ":" + RemediationKeys.TAINT_EFFECT;
    return RemediationStep.to(TAINTED)
        .taint(n.fault())
        .annotate(RemediationKeys.FAULT, n.fault())
        .annotate(RemediationKeys.INITIAL_UNSCHEDULABLE, String.valueOf(n.unschedulable()))
        .annotate(RemediationKeys.STEP_START, epoch())
        .remove(RemediationKeys.RECOVERED_AT)
        .warning("GpuFaultTainted", "tainted " + taint + ": " + n.faultMessage())
        .build();
  }

  private String fault(RemediationNode n) {
    String f = n.annotations().get(RemediationKeys.FAULT);
    return f != null ? f : n.fault();
  }

  private RemediationStep afterTaint(RemediationNode n, boolean breakerOpen) {
    if (!n.faulty()) {
      return toValidation(n, "the fault cleared before the drain");
    }
    if (!FaultLadder.of(fault(n)).contains(FaultLadder.DRAIN)) {
      return RemediationStep.stay(null, fault(n) + ": tainted until the condition clears");
    }
    if (breakerOpen) {
      return RemediationStep.stay(null, "tainted; the circuit breaker is open, no drain starts");
    }
    return RemediationStep.to(DRAINING)
        .unschedulable(true)
        .annotate(RemediationKeys.STEP_START, epoch())
        .event("GpuFaultDraining", "cordoned; evicting GPU pods (" + fault(n) + ")")
        .build();
  }

  /** Evicts the node's GPU pods (not DaemonSet or mirror pods) and waits until they are gone. */
  private RemediationStep drain(RemediationNode n) {
    if (!n.faulty()) {
      return toValidation(n, "the fault cleared during the drain");
    }
    List<Pod> pods =
        actions.podsOn(n.name(), null).stream()
            .filter(UpgradePods::usesGpu)
            .filter(p -> !UpgradePods.daemonSetPod(p) && !UpgradePods.mirror(p))
            .filter(p -> !UpgradePods.finished(p))
            .toList();
    // A GPU pod's emptyDir scratch is lost with the faulty GPU anyway; a pod no controller would
    // recreate is left to its owner.
    PodEvictions.Outcome e =
        PodEvictions.evict(actions, pods, false, true, "evict or delete it by hand");
    if (e.refused() != null) {
      return RemediationStep.stay(Duration.ofSeconds(10), "drain waits: " + e.refused());
    }
    if (!e.left().isEmpty()) {
      return RemediationStep.stay(POLL, "evicting GPU pods: " + e.describe());
    }
    if (!FaultLadder.of(fault(n)).contains(FaultLadder.RESET)) {
      return RemediationStep.stay(null, fault(n) + ": drained; waiting for the condition to clear");
    }
    String token = epoch();
    return RemediationStep.to(RESET_REQUESTED)
        .annotate(RemediationKeys.RESET_REQUESTED, token)
        .annotate(RemediationKeys.STEP_START, token)
        .event("GpuResetRequested", "GPU pods evicted; GPU reset asked of the node's GPU agent")
        .build();
  }

  private RemediationStep awaitReset(RemediationNode n) {
    if (!n.faulty()) {
      return toValidation(n, "the GPU reset cleared the fault");
    }
    Boolean answer = n.resetAnswered(n.annotations().get(RemediationKeys.RESET_REQUESTED));
    if (Boolean.FALSE.equals(answer)) {
      return toReboot(n, "GPU reset failed: " + n.resetAnswer().getMessage());
    }
    Instant since = n.time(RemediationKeys.STEP_START);
    if (since != null && !now.isBefore(since.plus(settings.resetTimeout()))) {
      return toReboot(
          n,
          (answer == null
                  ? "no answer to the GPU reset"
                  : "the fault is still there after the reset")
              + " within "
              + settings.resetTimeout().toSeconds()
              + " s");
    }
    Duration left =
        since == null ? POLL : Duration.between(now, since.plus(settings.resetTimeout()));
    return RemediationStep.stay(left, "waiting for the GPU reset");
  }

  private RemediationStep toReboot(RemediationNode n, String why) {
    if (!FaultLadder.of(fault(n)).contains(FaultLadder.REBOOT)) {
      return RemediationStep.stay(null, why + "; waiting for the condition to clear");
    }
    return RemediationStep.to(REBOOT_REQUIRED)
        .annotate(RemediationKeys.REBOOT_REQUESTED, why)
        .annotate(RemediationKeys.STEP_START, epoch())
        .warning(
            "GpuRebootRequested",
            why
                + "; reboot asked of an external agent (annotation "
                + RemediationKeys.REBOOT_REQUESTED
                + ")")
        .build();
  }

  private RemediationStep awaitReboot(RemediationNode n) {
    if (!n.faulty()) {
      return toValidation(n, "the fault cleared after the reboot request");
    }
    return RemediationStep.stay(null, fault(n) + ": waiting for a reboot by an external agent");
  }

  private RemediationStep toValidation(RemediationNode n, String why) {
    return RemediationStep.to(VALIDATING)
        .remove(RemediationKeys.RESET_REQUESTED, RemediationKeys.REBOOT_REQUESTED)
        .annotate(RemediationKeys.STEP_START, epoch())
        .event("GpuFaultCleared", why + "; validating")
        .build();
  }

  private RemediationStep validate(RemediationNode n) {
    if (n.faulty()) {
      // Back again before the node returned: start the ladder over (it is still tainted).
      return RemediationStep.to(TAINTED)
          .annotate(RemediationKeys.FAULT, n.fault())
          .annotate(RemediationKeys.STEP_START, epoch())
          .warning("GpuFaultReturned", n.fault() + " again while validating: " + n.faultMessage())
          .build();
    }
    if (!n.ready()) {
      return RemediationStep.stay(null, "validating: the node is not Ready");
    }
    if (!n.validatorReady()) {
      return RemediationStep.stay(POLL, "validating: the operator-validator is not ready");
    }
    return backInService(n);
  }

  private RemediationStep backInService(RemediationNode n) {
    RemediationStep.Builder b =
        RemediationStep.to(RECOVERED)
            .taint("")
            .remove(RemediationKeys.ANNOTATIONS.toArray(String[]::new))
            .annotate(RemediationKeys.RECOVERED_AT, epoch())
            .event("GpuNodeBackInService", "fault cleared and validated; back in service");
    if (cordonedByUs(n)) {
      b.unschedulable(false);
    }
    return b.build();
  }

  /** We cordoned the node and nobody had before us. */
  static boolean cordonedByUs(RemediationNode n) {
    return n.unschedulable()
        && Labels.FALSE.equals(n.annotations().get(RemediationKeys.INITIAL_UNSCHEDULABLE));
  }

  /**
   * Remediation was turned off: the node gives back what remediation took (its taint, its cordon
   * unless someone else had cordoned it) and loses the state label and annotations; null when it
   * carries none of them.
   */
  public static RemediationStep abandon(RemediationNode n) {
    boolean ours =
        n.state() != NONE
            || n.ourTaint() != null
            || RemediationKeys.ANNOTATIONS.stream().anyMatch(n.annotations()::containsKey)
            || n.annotations().containsKey(RemediationKeys.RECOVERED_AT);
    if (!ours) {
      return null;
    }
    RemediationStep.Builder b =
        RemediationStep.to(NONE)
            .remove(RemediationKeys.ANNOTATIONS.toArray(String[]::new))
            .remove(RemediationKeys.RECOVERED_AT)
            .event("GpuRemediationOff", "remediation is off; the node is given back");
    if (n.ourTaint() != null) {
      b.taint("");
    }
    if (n.state().inProgress() && cordonedByUs(n)) {
      b.unschedulable(false);
    }
    return b.build();
  }

  private String epoch() {
    return String.valueOf(now.getEpochSecond());
  }
}

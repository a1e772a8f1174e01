package io.gpuoperator.operator.upgrade;

import static io.gpuoperator.operator.upgrade.UpgradeState.*;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.operator.labels.Labels;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-node driver upgrade state machine: upgrade-required, cordon, wait for jobs, evict GPU
 * pods, drain (optional), restart the driver pod, validate, uncordon, upgrade-done, or
 * upgrade-failed with the reason. One call looks at one node once and returns its next {@link
 * Step}; the caller writes it and may call again at once. Everything it needs to remember lives on
 * the node (state label, annotations), so an operator restarted at any point carries on from there,
 * and eviction is only ever asked for pods that are not already terminating, so no pod is evicted
 * twice.
 *
 * <p>Rules beyond the original's: a node a user had cordoned stays cordoned; a new driver pod that
 * installs the same driver (equal {@code DRIVER_CONFIG_DIGEST}), or replaces one that never became
 * ready on a node the upgrade sees for the first time, is restarted without cordon or eviction; a
 * node that goes NotReady while its pods are evicted, its driver restarts or it validates fails at
 * once (freeing its slot) and starts over when it is Ready again; a failed node recovers by itself
 * when its new driver and validator become ready, and tries again when the driver changes once
 * more.
 */
public record NodeUpgrade(UpgradeSettings settings, NodeActions actions, Instant now) {
  /** How often a node waiting on something the operator does not watch is looked at again. */
  static final Duration POLL = Duration.ofSeconds(2);

  /** Prefix of failure reasons that clear up by themselves (the node was NotReady). */
  static final String NOT_READY_FAILURE = "NodeNotReady: ";

  /** Driver container restarts after which validation fails without waiting for the timeout. */
  static final int CRASH_RESTARTS = 5;

  /**
   * The node's next step.
   *
   * @param mayStart the upgrade budget lets this node leave upgrade-required now
   */
  public Step step(UpgradeNode n, boolean mayStart) {
    UpgradeState state = n.state();
    if (!n.ready() && needsKubelet(state)) {
      return fail(n, NOT_READY_FAILURE + "the node became NotReady during " + state.label());
    }
    return switch (state) {
      case UNKNOWN, UPGRADE_DONE -> classify(n);
      case UPGRADE_REQUIRED -> start(n, mayStart);
      case CORDON_REQUIRED -> cordon(n);
      case WAIT_FOR_JOBS_REQUIRED -> waitForJobs(n);
      case POD_DELETION_REQUIRED -> deleteGpuPods(n);
      case DRAIN_REQUIRED -> drain(n);
      case POD_RESTART_REQUIRED -> restartDriver(n);
      case VALIDATION_REQUIRED -> validate(n);
      case UNCORDON_REQUIRED -> uncordon(n);
      case UPGRADE_FAILED -> failed(n);
    };
  }

  /** States in which the node's kubelet must act for the upgrade to go on. */
  private static boolean needsKubelet(UpgradeState s) {
    return s == POD_DELETION_REQUIRED
        || s == DRAIN_REQUIRED
        || s == POD_RESTART_REQUIRED
        || s == VALIDATION_REQUIRED;
  }

  /**
   * A fresh or finished node: upgrade-required when its driver pod is behind, else done. A node
   * seen for the first time whose old driver pod never became ready (a cluster coming up, the
   * operator taking over) serves no GPU workload yet: its pod is only restarted.
   */
  private Step classify(UpgradeNode n) {
    if (n.needsUpgrade()) {
      boolean bringUp = n.state() == UNKNOWN && !n.driver().ready() && !n.requested();
      return Step.to(UPGRADE_REQUIRED)
          .annotate(UpgradeKeys.RESTART_ONLY, bringUp ? Labels.TRUE : null)
          .build();
    }
    if (n.state() == UNKNOWN && n.driver() != null && n.driver().latestRevision() != null) {
      return Step.to(UPGRADE_DONE).build();
    }
    return Step.idle();
  }

  private Step start(UpgradeNode n, boolean mayStart) {
    if (!n.needsUpgrade()) {
      // The change was reverted, the DaemonSet replaced the pod by other means, or the driver no
      // longer runs on the node.
      return Step.to(n.driver() == null ? UNKNOWN : UPGRADE_DONE).build();
    }
    if (n.skip()) {
      return Step.stay(null, "skipped (" + UpgradeKeys.SKIP + "=true)");
    }
    if (!mayStart) {
      return Step.stay(null, "waiting for a free upgrade slot");
    }
    boolean restartOnly = !n.requested() && (n.restartOnly() || n.driver().sameDriver());
    Step.Builder b =
        Step.to(restartOnly ? POD_RESTART_REQUIRED : CORDON_REQUIRED)
            .annotate(UpgradeKeys.TARGET_REVISION, n.driver().latestRevision())
            .annotate(UpgradeKeys.RESTART_ONLY, restartOnly ? Labels.TRUE : null)
            .remove(UpgradeKeys.REQUESTED, UpgradeKeys.FAILURE_REASON);
    if (!n.annotations().containsKey(UpgradeKeys.INITIAL_UNSCHEDULABLE)) {
      // Kept across retries: after a failure the node is cordoned by us, not by its owner.
      b.annotate(UpgradeKeys.INITIAL_UNSCHEDULABLE, String.valueOf(n.unschedulable()));
    }
    if (restartOnly) {
      b.annotate(UpgradeKeys.RESTART_START, epoch());
    }
    return b.build();
  }

  private Step cordon(UpgradeNode n) {
    Step.Builder b = Step.to(WAIT_FOR_JOBS_REQUIRED).unschedulable(true);
    if (settings.waitForJobsSelector() != null) {
      b.annotate(UpgradeKeys.WAIT_FOR_JOBS_START, epoch());
    }
    return b.build();
  }

  private Step waitForJobs(UpgradeNode n) {
    String selector = settings.waitForJobsSelector();
    if (selector != null) {
      List<Pod> running =
          actions.podsOn(n.name(), selector).stream()
              .filter(p -> !UpgradePods.finished(p))
              .toList();
      Step timer = timer(n, UpgradeKeys.WAIT_FOR_JOBS_START);
      if (timer != null) {
        return timer;
      }
      Duration timeout = settings.waitForJobsTimeout();
      boolean timedOut = !timeout.isZero() && elapsed(n, UpgradeKeys.WAIT_FOR_JOBS_START, timeout);
      if (!running.isEmpty() && !timedOut) {
        return Step.stay(POLL, "waiting for " + names(running) + " (" + selector + ") to complete");
      }
    }
    return Step.to(POD_DELETION_REQUIRED)
        .remove(UpgradeKeys.WAIT_FOR_JOBS_START)
        .annotate(UpgradeKeys.POD_DELETION_START, epoch())
        .build();
  }

  /** Evicts the node's GPU pods (not DaemonSet pods) and waits until they are gone. */
  private Step deleteGpuPods(UpgradeNode n) {
    Step timer = timer(n, UpgradeKeys.POD_DELETION_START);
    if (timer != null) {
      return timer;
    }
    List<Pod> pods =
        actions.podsOn(n.name(), null).stream()
            .filter(UpgradePods::usesGpu)
            .filter(p -> !UpgradePods.daemonSetPod(p) && !UpgradePods.finished(p))
            .toList();
    PodEvictions.Outcome e =
        evict(pods, settings.forceDeletion(), settings.deleteEmptyDir(), "podDeletion.force");
    if (e.refused() != null) {
      return settings.drain() ? toDrain() : fail(n, "GPU pod deletion: " + e.refused());
    }
    if (e.left().isEmpty()) {
      return settings.drain() ? toDrain() : toRestart();
    }
    if (elapsed(n, UpgradeKeys.POD_DELETION_START, settings.podDeletionTimeout())) {
      String why =
          "GPU pods still on the node after "
              + settings.podDeletionTimeout().toSeconds()
              + " s: "
              + e.describe();
      return settings.drain() ? toDrain() : fail(n, why);
    }
    return Step.stay(POLL, "evicting GPU pods: " + e.describe());
  }

  private Step toDrain() {
    return Step.to(DRAIN_REQUIRED)
        .remove(UpgradeKeys.POD_DELETION_START)
        .annotate(UpgradeKeys.DRAIN_START, epoch())
        .build();
  }

  private Step toRestart() {
    return Step.to(POD_RESTART_REQUIRED)
        .remove(UpgradeKeys.POD_DELETION_START, UpgradeKeys.DRAIN_START)
        .annotate(UpgradeKeys.RESTART_START, epoch())
        .build();
  }

  /** Evicts every pod of the node but DaemonSet, mirror and drain-skip pods. */
  private Step drain(UpgradeNode n) {
    Step timer = timer(n, UpgradeKeys.DRAIN_START);
    if (timer != null) {
      return timer;
    }
    List<Pod> pods =
        actions.podsOn(n.name(), settings.drainSelector()).stream()
            .filter(p -> !UpgradePods.daemonSetPod(p) && !UpgradePods.mirror(p))
            .filter(p -> !UpgradePods.drainSkip(p) && !UpgradePods.finished(p))
            .toList();
    PodEvictions.Outcome e =
        evict(pods, settings.drainForce(), settings.drainDeleteEmptyDir(), "drain.force");
    if (e.refused() != null) {
      return fail(n, "drain: " + e.refused());
    }
    if (e.left().isEmpty()) {
      return toRestart();
    }
    if (elapsed(n, UpgradeKeys.DRAIN_START, settings.drainTimeout())) {
      return fail(
          n,
          "drain did not finish in " + settings.drainTimeout().toSeconds() + " s: " + e.describe());
    }
    return Step.stay(POLL, "draining: " + e.describe());
  }

  /**
   * Stops the node's GPU clients (unless only restarting), waits for the validator to go so that
   * the one validating the new driver is new, deletes the old driver pod, and moves on once the new
   * revision's pod exists.
   */
  private Step restartDriver(UpgradeNode n) {
    Step retarget = retarget(n);
    if (retarget != null) {
      return retarget;
    }
    Step timer = timer(n, UpgradeKeys.RESTART_START);
    if (timer != null) {
      return timer;
    }
    boolean restartOnly = n.restartOnly();
    if (!restartOnly) {
      Map<String, String> pause = clients(n, Labels.TRUE, UpgradeKeys.PAUSED);
      if (!pause.isEmpty()) {
        return Step.to(POD_RESTART_REQUIRED).labels(pause).build();
      }
      if (n.validatorPresent()) {
        return Step.stay(POLL, "waiting for the GPU clients to stop");
      }
    }
    DriverPod driver = n.driver();
    if (driver != null && !driver.outdated() && !driver.terminating()) {
      return Step.to(VALIDATION_REQUIRED)
          .labels(clients(n, UpgradeKeys.PAUSED, Labels.TRUE))
          .annotate(UpgradeKeys.TARGET_REVISION, driver.latestRevision())
          .remove(UpgradeKeys.RESTART_START)
          .annotate(UpgradeKeys.VALIDATION_START, epoch())
          .build();
    }
    if (elapsed(n, UpgradeKeys.RESTART_START, settings.validationTimeout())) {
      return fail(
          n,
          "no driver pod of the new revision on the node after "
              + settings.validationTimeout().toSeconds()
              + " s");
    }
    if (driver != null && !driver.terminating()) {
      actions.deleteDriverPod(driver);
      return Step.stay(POLL, "restarting driver pod " + driver);
    }
    return Step.stay(POLL, "waiting for the new driver pod");
  }

  private Step validate(UpgradeNode n) {
    Step retarget = retarget(n);
    if (retarget != null) {
      return retarget;
    }
    DriverPod current = n.driver();
    if (current != null && current.outdated()) {
      // The driver changed again while validating: restart once more (GPU pods are gone).
      return Step.to(POD_RESTART_REQUIRED)
          .annotate(UpgradeKeys.TARGET_REVISION, current.latestRevision())
          .remove(UpgradeKeys.VALIDATION_START)
          .annotate(UpgradeKeys.RESTART_START, epoch())
          .build();
    }
    Step timer = timer(n, UpgradeKeys.VALIDATION_START);
    if (timer != null) {
      return timer;
    }
    String missing = validationMissing(n);
    if (missing == null) {
      return Step.to(UNCORDON_REQUIRED).remove(UpgradeKeys.VALIDATION_START).build();
    }
    DriverPod d = n.driver();
    if (d != null && d.trouble() != null && d.trouble().startsWith(CRASHING)) {
      return fail(n, "validation: driver pod " + d + " " + d.trouble());
    }
    if (elapsed(n, UpgradeKeys.VALIDATION_START, settings.validationTimeout())) {
      return fail(
          n,
          "validation timed out after "
              + settings.validationTimeout().toSeconds()
              + " s: "
              + missing);
    }
    return Step.stay(POLL, "validating: " + missing);
  }

  /**
   * A node restarted in place (same driver) whose DaemonSet changed again: the new change may need
   * evictions, so it goes back to upgrade-required and is judged afresh.
   */
  private Step retarget(UpgradeNode n) {
    DriverPod d = n.driver();
    String target = n.annotations().get(UpgradeKeys.TARGET_REVISION);
    if (!n.restartOnly() || d == null || d.latestRevision() == null || target == null) {
      return null;
    }
    if (target.equals(d.latestRevision()) || target.equals(UpgradeKeys.ORPHANED_REVISION)) {
      return null;
    }
    return Step.to(UPGRADE_REQUIRED)
        .remove(
            UpgradeKeys.RESTART_ONLY,
            UpgradeKeys.TARGET_REVISION,
            UpgradeKeys.RESTART_START,
            UpgradeKeys.VALIDATION_START)
        .build();
  }

  /** Marks a trouble message as a crash loop (see {@link #crashing}). */
  static final String CRASHING = "crash-looping";

  /** The trouble text for a driver container that restarted this many times. */
  public static String crashing(int restarts, String last) {
    return restarts >= CRASH_RESTARTS
        ? CRASHING + " (" + restarts + " restarts" + (last == null ? "" : ", " + last) + ")"
        : last;
  }

  /** What validation still waits for, or null when the node validated. */
  private static String validationMissing(UpgradeNode n) {
    DriverPod d = n.driver();
    if (d == null || d.terminating()) {
      return "no driver pod";
    }
    if (d.outdated()) {
      return "driver pod " + d + " runs an old revision";
    }
    if (!d.ready()) {
      return "driver pod "
          + d
          + " not ready"
          + (d.trouble() == null ? "" : " (" + d.trouble() + ")");
    }
    if (n.validatorExpected() && !n.validatorReady()) {
      return "validator pod not ready on the node";
    }
    return null;
  }

  private Step uncordon(UpgradeNode n) {
    boolean keepCordon = Labels.TRUE.equals(n.annotations().get(UpgradeKeys.INITIAL_UNSCHEDULABLE));
    Step.Builder b =
        Step.to(UPGRADE_DONE)
            .remove(
                UpgradeKeys.INITIAL_UNSCHEDULABLE,
                UpgradeKeys.TARGET_REVISION,
                UpgradeKeys.RESTART_ONLY,
                UpgradeKeys.FAILURE_REASON);
    if (n.unschedulable() && !keepCordon && !n.restartOnly()) {
      b.unschedulable(false);
    }
    return b.build();
  }

  /**
   * A failed node recovers when its new driver validates after all, starts over when the driver
   * changed again or when it failed only for being NotReady and is Ready again; otherwise it waits
   * for the user (relabel it upgrade-required).
   */
  private Step failed(UpgradeNode n) {
    DriverPod d = n.driver();
    String target = n.annotations().get(UpgradeKeys.TARGET_REVISION);
    if (d != null && d.outdated() && target != null && !target.equals(d.latestRevision())) {
      return Step.to(UPGRADE_REQUIRED).build();
    }
    String reason = n.annotations().get(UpgradeKeys.FAILURE_REASON);
    if (reason != null && reason.startsWith(NOT_READY_FAILURE) && n.ready() && n.needsUpgrade()) {
      return Step.to(UPGRADE_REQUIRED).build();
    }
    if (validationMissing(n) == null) {
      return Step.to(UNCORDON_REQUIRED).build();
    }
    return Step.idle();
  }

  /** Fails the node: the reason goes to an annotation and an Event; paused clients come back. */
  private Step fail(UpgradeNode n, String reason) {
    return Step.to(UPGRADE_FAILED)
        .labels(clients(n, UpgradeKeys.PAUSED, Labels.TRUE))
        .annotate(UpgradeKeys.FAILURE_REASON, reason)
        .remove(
            UpgradeKeys.WAIT_FOR_JOBS_START,
            UpgradeKeys.POD_DELETION_START,
            UpgradeKeys.DRAIN_START,
            UpgradeKeys.RESTART_START,
            UpgradeKeys.VALIDATION_START)
        .failure(reason)
        .build();
  }

  /** Every annotation the upgrade writes on a node. */
  static final java.util.List<String> ANNOTATIONS =
      java.util.List.of(
          UpgradeKeys.ENABLED,
          UpgradeKeys.INITIAL_UNSCHEDULABLE,
          UpgradeKeys.WAIT_FOR_JOBS_START,
          UpgradeKeys.POD_DELETION_START,
          UpgradeKeys.DRAIN_START,
          UpgradeKeys.RESTART_START,
          UpgradeKeys.VALIDATION_START,
          UpgradeKeys.TARGET_REVISION,
          UpgradeKeys.RESTART_ONLY,
          UpgradeKeys.FAILURE_REASON);

  /**
   * Auto-upgrade was turned off (or the driver is no longer managed): the node gives back what the
   * upgrade took (its cordon, unless someone else had cordoned it, and its paused GPU clients) and
   * loses the upgrade's label and annotations; null when it carries none of them.
   */
  public static Step abandon(UpgradeNode n) {
    Step.Builder b = Step.to(UNKNOWN).labels(clients(n, UpgradeKeys.PAUSED, Labels.TRUE));
    boolean ours = false;
    for (String a : ANNOTATIONS) {
      if (n.annotations().containsKey(a)) {
        b.remove(a);
        ours = true;
      }
    }
    boolean cordonedByUs =
        n.state().inProgress()
            && n.unschedulable()
            && Labels.FALSE.equals(n.annotations().get(UpgradeKeys.INITIAL_UNSCHEDULABLE));
    if (cordonedByUs) {
      b.unschedulable(false);
    }
    if (!ours && n.state() == UNKNOWN && clients(n, UpgradeKeys.PAUSED, Labels.TRUE).isEmpty()) {
      return null;
    }
    return b.build();
  }

  /** GPU-client deploy labels whose value is {@code from}, set to {@code to}. */
  private static Map<String, String> clients(UpgradeNode n, String from, String to) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String operand : UpgradeKeys.GPU_CLIENTS) {
      String key = Labels.deploy(operand);
      if (from.equals(n.labels().get(key))) {
        out.put(key, to);
      }
    }
    return out;
  }

  private PodEvictions.Outcome evict(
      List<Pod> pods, boolean force, boolean emptyDir, String forceField) {
    return PodEvictions.evict(actions, pods, force, emptyDir, forceField);
  }

  private boolean elapsed(UpgradeNode n, String annotation, Duration timeout) {
    Instant since = n.time(annotation);
    return since != null && !now.isBefore(since.plus(timeout));
  }

  /**
   * A timed state whose start time is missing (removed by hand, or a malformed value) gets it now,
   * so that its timeout still applies; null when the time is there.
   */
  private Step timer(UpgradeNode n, String annotation) {
    if (n.time(annotation) != null) {
      return null;
    }
    return Step.to(n.state()).annotate(annotation, epoch()).build();
  }

  private String epoch() {
    return String.valueOf(now.getEpochSecond());
  }

  private static String names(List<Pod> pods) {
    return PodEvictions.names(pods);
  }
}

package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.common.UpgradeStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which waiting nodes of one driver may start upgrading now, and how far the upgrade got. Pure: the
 * same nodes and settings give the same answer, so the status shown to users and the decisions of
 * the state machine never disagree.
 *
 * <p>Limits, all at once: at most {@code maxParallelUpgrades} nodes between cordon and uncordon; at
 * most {@code maxUnavailable} nodes unavailable, counting nodes already cordoned (by anyone) or
 * NotReady, so starting a node that is already cordoned costs nothing, nor does an in-place restart
 * (same driver); with a rollout, canary nodes go first and alone, then waves of {@code waveSize}
 * nodes in name order, each after the waves before it are done or failed; more failed nodes than
 * {@code maxFailedNodes}, or a failed canary, halt the rollout (no node starts; those in progress
 * finish). A node failed only for being NotReady does not count: it retries when Ready. Skipped and
 * NotReady waiting nodes never hold the others back.
 *
 * @param startable names of the nodes that may leave upgrade-required now
 * @param status the progress, for the policy's status
 */
public record UpgradeRollout(Set<String> startable, UpgradeStatus status) {
  public static final String IDLE = "idle";
  public static final String IN_PROGRESS = "inProgress";
  public static final String HALTED = "halted";
  public static final String FAILED = "failed";
  public static final String DISABLED = "disabled";

  /** The plan for a driver's nodes (those running its pods or carrying an upgrade state). */
  public static UpgradeRollout plan(List<UpgradeNode> nodes, UpgradeSettings s) {
    List<UpgradeNode> sorted =
        nodes.stream().sorted(Comparator.comparing(UpgradeNode::name)).toList();
    if (!s.autoUpgrade()) {
      UpgradeStatus st = new UpgradeStatus();
      st.phase = DISABLED;
      return new UpgradeRollout(Set.of(), st);
    }
    int total = sorted.size();
    String invalid = invalid(s, total);
    if (invalid != null) {
      UpgradeStatus st = new UpgradeStatus();
      st.phase = HALTED;
      st.message = "halted: " + invalid;
      return new UpgradeRollout(Set.of(), st);
    }
    List<UpgradeNode> canaries = canaries(sorted, s);
    Set<String> canaryNames = canaries.stream().map(UpgradeNode::name).collect(Collectors.toSet());
    Map<String, Integer> wave = waves(sorted, canaryNames, s, total);

    List<UpgradeNode> failed =
        sorted.stream().filter(n -> n.state() == UpgradeState.UPGRADE_FAILED).toList();
    List<UpgradeNode> counted = failed.stream().filter(n -> !transientFailure(n)).toList();
    boolean canaryFailed = counted.stream().anyMatch(n -> canaryNames.contains(n.name()));
    boolean tooMany = s.maxFailedNodes() >= 0 && counted.size() > s.maxFailedNodes();
    boolean halted = canaryFailed || tooMany;

    int current =
        sorted.stream()
            .filter(UpgradeRollout::hasWork)
            .mapToInt(n -> wave.get(n.name()))
            .min()
            .orElse(-1);

    Set<String> startable = new LinkedHashSet<>();
    long inProgress = sorted.stream().filter(n -> n.state().inProgress()).count();
    if (!halted && current >= 0) {
      long unavailable = sorted.stream().filter(n -> n.unschedulable() || !n.ready()).count();
      int maxUnavailable =
          UpgradeSettings.scaled(s.maxUnavailable(), total, "upgradePolicy.maxUnavailable");
      long parallel = s.maxParallel() == 0 ? Long.MAX_VALUE : s.maxParallel() - inProgress;
      long available = maxUnavailable - unavailable;
      for (UpgradeNode n : sorted) {
        if (parallel <= 0) {
          break;
        }
        if (!waiting(n) || wave.get(n.name()) != current) {
          continue;
        }
        boolean inPlace =
            !n.requested() && (n.restartOnly() || n.driver() != null && n.driver().sameDriver());
        boolean costs = !n.unschedulable() && !inPlace;
        if (costs && available <= 0) {
          continue;
        }
        startable.add(n.name());
        parallel--;
        if (costs) {
          available--;
        }
      }
    }
    return new UpgradeRollout(
        Set.copyOf(startable),
        status(sorted, s, halted, canaryFailed, current, wave, failed, canaries.isEmpty()));
  }

  /**
   * The progress shown in a policy's status, from node labels and annotations alone (the policy's
   * node cache has no pods): null while no node carries an upgrade state.
   */
  public static UpgradeStatus status(Collection<Node> nodes, UpgradeSettings s) {
    List<UpgradeNode> tracked =
        nodes.stream()
            .filter(
                n ->
                    n.getMetadata().getLabels() != null
                        && n.getMetadata().getLabels().containsKey(UpgradeKeys.STATE))
            .map(
                n ->
                    new UpgradeNode(
                        n.getMetadata().getName(),
                        n.getMetadata().getLabels(),
                        n.getMetadata().getAnnotations(),
                        UpgradeViews.unschedulable(n),
                        true,
                        null,
                        false,
                        false))
            .toList();
    return tracked.isEmpty() ? null : plan(tracked, s).status();
  }

  /** Canaries: nodes matching the selector (or any node), not skipped, first by name. */
  private static List<UpgradeNode> canaries(List<UpgradeNode> sorted, UpgradeSettings s) {
    if (s.canaryCount() <= 0) {
      return List.of();
    }
    return sorted.stream()
        .filter(n -> !n.skip())
        .filter(
            n ->
                s.canarySelector().entrySet().stream()
                    .allMatch(e -> e.getValue().equals(n.labels().get(e.getKey()))))
        .limit(s.canaryCount())
        .toList();
  }

  /** Wave of each node: 0 for canaries, then 1, 2, ... by name in waves of waveSize. */
  private static Map<String, Integer> waves(
      List<UpgradeNode> sorted, Set<String> canaries, UpgradeSettings s, int total) {
    int size =
        s.waveSize() == null
            ? Integer.MAX_VALUE
            : Math.max(
                1, UpgradeSettings.scaled(s.waveSize(), total, "upgradePolicy.rollout.waveSize"));
    Map<String, Integer> out = new HashMap<>();
    int position = 0;
    for (UpgradeNode n : sorted) {
      if (canaries.contains(n.name())) {
        out.put(n.name(), 0);
      } else {
        out.put(n.name(), 1 + position++ / size);
      }
    }
    return out;
  }

  /**
   * Waiting to start and able to: Ready, not skipped, still behind (when the driver pod is known;
   * the policy status is computed from node labels alone).
   */
  private static boolean waiting(UpgradeNode n) {
    return n.state() == UpgradeState.UPGRADE_REQUIRED
        && n.ready()
        && !n.skip()
        && (n.driver() == null || n.needsUpgrade());
  }

  /** A malformed count or percentage, named; null when both are fine. */
  private static String invalid(UpgradeSettings s, int total) {
    try {
      UpgradeSettings.scaled(s.maxUnavailable(), total, "upgradePolicy.maxUnavailable");
      if (s.waveSize() != null) {
        UpgradeSettings.scaled(s.waveSize(), total, "upgradePolicy.rollout.waveSize");
      }
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The node holds its wave open: it waits to start or is in progress. */
  private static boolean hasWork(UpgradeNode n) {
    return waiting(n) || n.state().inProgress();
  }

  private static boolean transientFailure(UpgradeNode n) {
    String reason = n.annotations().get(UpgradeKeys.FAILURE_REASON);
    return reason != null && reason.startsWith(NodeUpgrade.NOT_READY_FAILURE);
  }

  private static UpgradeStatus status(
      List<UpgradeNode> sorted,
      UpgradeSettings s,
      boolean halted,
      boolean canaryFailed,
      int current,
      Map<String, Integer> wave,
      List<UpgradeNode> failed,
      boolean noCanaries) {
    UpgradeStatus st = new UpgradeStatus();
    List<UpgradeNode> running = sorted.stream().filter(n -> n.state().inProgress()).toList();
    List<UpgradeNode> pending =
        sorted.stream().filter(n -> n.state() == UpgradeState.UPGRADE_REQUIRED).toList();
    st.done = (int) sorted.stream().filter(n -> n.state() == UpgradeState.UPGRADE_DONE).count();
    st.inProgress = running.size();
    st.failed = failed.size();
    st.pending = pending.size();
    boolean rollout = !noCanaries || s.waveSize() != null;
    if (rollout && current >= 0) {
      st.wave = current;
    }
    List<String> parts = new ArrayList<>();
    if (halted) {
      st.phase = HALTED;
      parts.add(
          canaryFailed
              ? "halted: a canary node failed"
              : "halted: "
                  + failed.size()
                  + " nodes failed, more than rollout.maxFailedNodes "
                  + s.maxFailedNodes());
    } else if (!running.isEmpty() || pending.stream().anyMatch(UpgradeRollout::waiting)) {
      st.phase = IN_PROGRESS;
    } else {
      st.phase = failed.isEmpty() ? IDLE : FAILED;
    }
    if (!running.isEmpty()) {
      parts.add(
          (rollout && current >= 0 ? (current == 0 ? "canary: " : "wave " + current + ": ") : "")
              + "upgrading "
              + names(running));
    }
    long skipped = pending.stream().filter(UpgradeNode::skip).count();
    if (skipped > 0) {
      parts.add(skipped + " skipped (" + UpgradeKeys.SKIP + ")");
    }
    if (!failed.isEmpty()) {
      parts.add(
          "failed: "
              + failed.stream()
                  .limit(3)
                  .map(
                      n ->
                          n.name()
                              + " ("
                              + n.annotations().getOrDefault(UpgradeKeys.FAILURE_REASON, "?")
                              + ")")
                  .collect(Collectors.joining(", "))
              + (failed.size() > 3 ? " and " + (failed.size() - 3) + " more" : ""));
    }
    st.message = parts.isEmpty() ? null : String.join("; ", parts);
    return st;
  }

  private static String names(List<UpgradeNode> nodes) {
    String shown = nodes.stream().limit(5).map(UpgradeNode::name).collect(Collectors.joining(", "));
    return nodes.size() > 5 ? shown + " and " + (nodes.size() - 5) + " more" : shown;
  }
}

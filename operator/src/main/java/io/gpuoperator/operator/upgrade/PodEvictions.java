package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Evicting a node's pods through {@link NodeActions}, shared by the driver upgrade and GPU fault
 * remediation so that both keep the same rules: only pods not yet terminating are asked for (so a
 * pass repeated after a restart evicts nothing twice), a disruption budget's refusal is waited out,
 * and a pod that eviction would lose for good is refused with the setting that allows it.
 */
public final class PodEvictions {
  private PodEvictions() {}

  /**
   * The outcome of evicting a set of pods once.
   *
   * @param left pods still on the node (terminating, or refused for now by a budget)
   * @param blocked pods a PodDisruptionBudget kept for now
   * @param refused why eviction stopped (a pod it would lose for good), or null
   */
  public record Outcome(List<Pod> left, List<String> blocked, String refused) {
    /** The pods left, and those a budget keeps, for logs and Events. */
    public String describe() {
      String pods = names(left);
      return blocked.isEmpty()
          ? pods
          : pods + "; refused for now (PodDisruptionBudget): " + String.join(", ", blocked);
    }

    /** Whether the node has none of the pods left. */
    public boolean done() {
      return refused == null && left.isEmpty();
    }
  }

  /**
   * Evicts each pod that is not terminating yet; pods that are terminating are only waited for. A
   * pod no controller recreates (without {@code force}) or with emptyDir data (without {@code
   * emptyDir}) stops the eviction, naming {@code forceField} or deleteEmptyDir.
   */
  public static Outcome evict(
      NodeActions actions, List<Pod> pods, boolean force, boolean emptyDir, String forceField) {
    List<Pod> left = new ArrayList<>();
    List<String> blocked = new ArrayList<>();
    for (Pod p : pods) {
      if (UpgradePods.terminating(p)) {
        left.add(p);
        continue;
      }
      if (!UpgradePods.managed(p) && !force) {
        return new Outcome(
            left,
            blocked,
            "pod " + UpgradePods.ref(p) + " has no controller to recreate it; set " + forceField);
      }
      if (UpgradePods.usesEmptyDir(p) && !emptyDir) {
        return new Outcome(
            left,
            blocked,
            "pod " + UpgradePods.ref(p) + " has emptyDir data; set deleteEmptyDir to evict it");
      }
      switch (actions.evict(p)) {
        case EVICTED -> left.add(p);
        case BLOCKED -> {
          left.add(p);
          blocked.add(UpgradePods.ref(p));
        }
        case GONE -> {}
      }
    }
    return new Outcome(left, blocked, null);
  }

  /** Up to five pods by namespace/name, then how many more. */
  public static String names(List<Pod> pods) {
    int shown = Math.min(pods.size(), 5);
    String list =
        pods.subList(0, shown).stream().map(UpgradePods::ref).collect(Collectors.joining(", "));
    return pods.size() > shown ? list + " and " + (pods.size() - shown) + " more" : list;
  }
}

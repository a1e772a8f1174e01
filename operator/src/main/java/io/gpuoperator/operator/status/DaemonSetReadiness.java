package io.gpuoperator.operator.status;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.gpuoperator.operator.reconciler.ReconcilerKeys;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a DaemonSet has rolled out, from its status (RollingUpdate) or from its pods (OnDelete,
 * where pods only move to a new revision when deleted). Pure: the caller reads the objects.
 */
public final class DaemonSetReadiness {
  private DaemonSetReadiness() {}

  /** Readiness of one DaemonSet. */
  public record Verdict(boolean ready, int nodesReady, int nodesDesired, String reason) {}

  /** Whether readiness must be read from pods (OnDelete update strategy). */
  public static boolean isOnDelete(DaemonSet ds) {
    return ds.getSpec() != null
        && ds.getSpec().getUpdateStrategy() != null
        && "OnDelete".equals(ds.getSpec().getUpdateStrategy().getType());
  }

  /**
   * RollingUpdate: the controller has seen the newest spec (observedGeneration) and every desired
   * node runs an updated, available pod.
   */
  public static Verdict fromStatus(DaemonSet ds) {
    String id = id(ds);
    DaemonSetStatus st = ds.getStatus();
    if (st == null || st.getObservedGeneration() == null) {
      return new Verdict(false, 0, 0, id + " has no status yet");
    }
    int desired = n(st.getDesiredNumberScheduled());
    int available = n(st.getNumberAvailable());
    int updated = n(st.getUpdatedNumberScheduled());
    Long generation = ds.getMetadata().getGeneration();
    if (generation != null && st.getObservedGeneration() < generation) {
      return new Verdict(
          false,
          Math.min(available, updated),
          desired,
          id
              + " not yet observed by the DaemonSet controller (observedGeneration "
              + st.getObservedGeneration()
              + " < "
              + generation
              + ")");
    }
    int ready = Math.min(available, updated);
    if (updated < desired || available < desired) {
      return notReady(
          id, ready, desired, "nodes ready (updated " + updated + ", available " + available + ")");
    }
    return new Verdict(true, ready, desired, null);
  }

  /** Not ready, saying how many of the nodes are: "{id}: {ready}/{desired} {what}". */
  private static Verdict notReady(String id, int ready, int desired, String what) {
    return new Verdict(false, ready, desired, id + ": " + ready + "/" + desired + " " + what);
  }

  /**
   * OnDelete, when its status says fewer pods are ready than nodes want one: not ready, counting
   * the ready pods the status reports (whatever their revision).
   */
  public static Verdict notAllReady(DaemonSet ds) {
    DaemonSetStatus st = ds.getStatus();
    int desired = n(st.getDesiredNumberScheduled());
    int ready = n(st.getNumberReady());
    return notReady(id(ds), ready, desired, "nodes have a ready pod");
  }

  /**
   * OnDelete: ready when every desired node runs a ready pod created from the DaemonSet's newest
   * ControllerRevision (pods of an older revision wait for the upgrade controller).
   */
  public static Verdict fromPods(DaemonSet ds, List<ControllerRevision> revisions, List<Pod> pods) {
    String id = id(ds);
    DaemonSetStatus st = ds.getStatus();
    if (st == null || st.getObservedGeneration() == null) {
      return new Verdict(false, 0, 0, id + " has no status yet");
    }
    int desired = n(st.getDesiredNumberScheduled());
    Optional<ControllerRevision> newest =
        revisions.stream()
            .filter(r -> ownedBy(r.getMetadata().getOwnerReferences(), ds))
            .max(Comparator.comparing(ControllerRevision::getRevision));
    if (desired == 0) {
      return new Verdict(true, 0, 0, null);
    }
    if (newest.isEmpty()) {
      return new Verdict(false, 0, desired, id + " has no ControllerRevision yet");
    }
    String hash =
        newest.get().getMetadata().getLabels() == null
            ? null
            : newest.get().getMetadata().getLabels().get(ReconcilerKeys.REVISION_HASH_LABEL);
    long current =
        pods.stream()
            .filter(p -> ownedBy(p.getMetadata().getOwnerReferences(), ds))
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .filter(
                p ->
                    p.getMetadata().getLabels() != null
                        && Objects.equals(
                            hash,
                            p.getMetadata().getLabels().get(ReconcilerKeys.REVISION_HASH_LABEL)))
            .filter(DaemonSetReadiness::podReady)
            .count();
    int ready = (int) current;
    if (ready < desired) {
      return notReady(
          id,
          ready,
          desired,
          "nodes run a ready pod of the newest revision " + newest.get().getRevision());
    }
    return new Verdict(true, ready, desired, null);
  }

  private static boolean podReady(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean ownedBy(List<OwnerReference> refs, DaemonSet ds) {
    return refs != null
        && refs.stream()
            .anyMatch(
                r ->
                    "DaemonSet".equals(r.getKind())
                        && (Objects.equals(r.getUid(), ds.getMetadata().getUid())
                            || ds.getMetadata().getUid() == null
                                && Objects.equals(r.getName(), ds.getMetadata().getName())));
  }

  private static String id(DaemonSet ds) {
    return "DaemonSet " + ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName();
  }

  private static int n(Integer v) {
    return v == null ? 0 : v;
  }
}

package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.operator.reconciler.ReconcilerKeys;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns cached Nodes, driver pods, their DaemonSets and ControllerRevisions into what the upgrade
 * state machine reads ({@link UpgradeNode}, {@link DriverPod}). Pure.
 */
public final class UpgradeViews {
  private UpgradeViews() {}

  /** Whether the node's Ready condition is True. */
  public static boolean ready(Node node) {
    return node.getStatus() != null
        && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public static boolean unschedulable(Node node) {
    return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  /** The node as the state machine sees it. */
  public static UpgradeNode node(
      Node node, DriverPod driver, boolean validatorPresent, boolean validatorReady) {
    return new UpgradeNode(
        node.getMetadata().getName(),
        node.getMetadata().getLabels(),
        node.getMetadata().getAnnotations(),
        unschedulable(node),
        ready(node),
        driver,
        validatorPresent,
        validatorReady);
  }

  /**
   * The driver pod as the upgrade sees it, with its DaemonSet (null when unknown) and that
   * DaemonSet's ControllerRevisions.
   */
  public static DriverPod driverPod(
      Pod pod, DaemonSet ds, Collection<ControllerRevision> revisions) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return driverPod(
        pod,
        labels == null ? null : labels.get(ReconcilerKeys.REVISION_HASH_LABEL),
        ds == null ? null : latestRevision(ds, revisions),
        ds == null ? null : digest(ds.getSpec().getTemplate().getSpec()));
  }

  /**
   * A driver pod no DaemonSet controls any more (its DaemonSet was deleted leaving it running),
   * seen against the DaemonSet that now selects its node: its revision is {@code orphaned}, which
   * no pod runs, so the node is upgraded; the config digest still decides whether workloads go.
   */
  public static DriverPod orphan(Pod pod, DaemonSet successor) {
    return driverPod(
        pod,
        null,
        UpgradeKeys.ORPHANED_REVISION,
        digest(successor.getSpec().getTemplate().getSpec()));
  }

  // The pod's own facts, against the revision and pod template its node should run.
  private static DriverPod driverPod(
      Pod pod, String revision, String latestRevision, String latestDigest) {
    return new DriverPod(
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        pod.getMetadata().getDeletionTimestamp() != null,
        podReady(pod),
        revision,
        latestRevision,
        digest(pod.getSpec()),
        latestDigest,
        trouble(pod));
  }

  /**
   * The owner reference that names an object's controller (any kind), or null: the API server
   * allows one at most.
   */
  public static OwnerReference controllerRef(HasMetadata object) {
    List<OwnerReference> refs = object.getMetadata().getOwnerReferences();
    if (refs == null) {
      return null;
    }
    return refs.stream()
        .filter(r -> Boolean.TRUE.equals(r.getController()))
        .findFirst()
        .orElse(null);
  }

  /** The UID of the controller (any kind) an object's owner references name, or null. */
  public static String controller(HasMetadata object) {
    OwnerReference ref = controllerRef(object);
    return ref == null ? null : ref.getUid();
  }

  /** The owner reference of the DaemonSet that controls a pod, or null. */
  public static OwnerReference daemonSetController(Pod pod) {
    OwnerReference ref = controllerRef(pod);
    return ref != null && "DaemonSet".equals(ref.getKind()) ? ref : null;
  }

  /** The UID of the DaemonSet that controls a pod, or null. */
  public static String owner(Pod pod) {
    OwnerReference ref = daemonSetController(pod);
    return ref == null ? null : ref.getUid();
  }

  /** Hash of the DaemonSet's newest ControllerRevision (highest revision number), or null. */
  public static String latestRevision(DaemonSet ds, Collection<ControllerRevision> revisions) {
    String uid = ds.getMetadata().getUid();
    return revisions.stream()
        .filter(
            r ->
                r.getMetadata().getOwnerReferences() != null
                    && r.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> Objects.equals(uid, o.getUid())))
        .max(Comparator.comparing(ControllerRevision::getRevision))
        .map(r -> r.getMetadata().getLabels())
        .map(l -> l.get(ReconcilerKeys.REVISION_HASH_LABEL))
        .orElse(null);
  }

  /** Running with the Ready condition True. */
  public static boolean podReady(Pod pod) {
    return pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase())
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** {@code DRIVER_CONFIG_DIGEST} of the driver container, or null. */
  static String digest(PodSpec spec) {
    if (spec == null || spec.getContainers() == null) {
      return null;
    }
    for (Container c : spec.getContainers()) {
      if (!UpgradeKeys.DRIVER_CONTAINER.equals(c.getName()) || c.getEnv() == null) {
        continue;
      }
      for (EnvVar e : c.getEnv()) {
        if (UpgradeKeys.CONFIG_DIGEST_ENV.equals(e.getName())) {
          return e.getValue();
        }
      }
    }
    return null;
  }

  /** Why the driver container is not running well, from its status; null when it is. */
  static String trouble(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return null;
    }
    for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
      if (!UpgradeKeys.DRIVER_CONTAINER.equals(c.getName())) {
        continue;
      }
      String last = null;
      if (c.getState() != null && c.getState().getWaiting() != null) {
        var w = c.getState().getWaiting();
        last = w.getReason() + (w.getMessage() == null ? "" : ": " + w.getMessage());
      } else if (c.getLastState() != null && c.getLastState().getTerminated() != null) {
        var t = c.getLastState().getTerminated();
        last = "last exit code " + t.getExitCode();
      }
      int restarts = c.getRestartCount() == null ? 0 : c.getRestartCount();
      return NodeUpgrade.crashing(restarts, last);
    }
    return null;
  }
}

package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/** What the upgrade state machine does to the cluster beyond writing the node itself. */
public interface NodeActions {
  /**
   * The pods bound to a node, listed live by field selector (the operator never caches all pods),
   * optionally narrowed by a label selector such as {@code app=training}.
   */
  List<Pod> podsOn(String node, String labelSelector);

  /** Evicts a pod through the {@code policy/v1} Eviction API, which honours disruption budgets. */
  Eviction evict(Pod pod);

  /** Deletes the node's driver pod so that its DaemonSet starts the new revision's. */
  void deleteDriverPod(DriverPod pod);

  /** The result of one eviction request. */
  enum Eviction {
    /** Accepted: the pod is terminating. */
    EVICTED,
    /** Refused for now (429), e.g. a PodDisruptionBudget allows no disruption. */
    BLOCKED,
    /** The pod no longer exists. */
    GONE
  }
}

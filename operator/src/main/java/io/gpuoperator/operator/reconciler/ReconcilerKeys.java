package io.gpuoperator.operator.reconciler;

import io.gpuoperator.operator.labels.Labels;

/** Label and annotation keys and names the reconcilers write or select on. */
public final class ReconcilerKeys {
  /** Hash of an applied object's content; an object whose hash matches is not written again. */
  public static final String HASH_ANNOTATION = Labels.LAST_APPLIED_HASH;

  /** Names the operand an object belongs to, so a disabled operand's objects can be found. */
  public static final String OPERAND_LABEL = "nvidia.com/gpu-operator.operand";

  /** Field manager of the operator's server-side applies. */
  public static final String FIELD_MANAGER = "gpu-operator";

  /** Lease name, as the original's LeaderElectionID. */
  public static final String LEASE_NAME = "53822513.nvidia.com";

  /** Pods of a DaemonSet carry the hash of the ControllerRevision they were created from. */
  public static final String REVISION_HASH_LABEL = "controller-revision-hash";

  /** Events about cluster-scoped ClusterPolicies are recorded in this namespace. */
  public static final String EVENTS_NAMESPACE = "default";

  private ReconcilerKeys() {}
}

package io.gpuoperator.operator.reconciler;

/** Label and annotation keys and names the reconcilers write or select on. */
public final class ReconcilerKeys {
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

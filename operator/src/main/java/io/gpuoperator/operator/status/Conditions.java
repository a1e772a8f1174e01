package io.gpuoperator.operator.status;

/** Condition types and reasons, as the original's internal/conditions package names them. */
public final class Conditions {
  public static final String READY = "Ready";
  public static final String ERROR = "Error";

  public static final String RECONCILED = "Reconciled";
  public static final String RECONCILE_FAILED = "ReconcileFailed";
  public static final String OPERAND_NOT_READY = "OperandNotReady";
  public static final String NO_GPU_NODES = "NoGPUNodes";
  public static final String NFD_LABELS_MISSING = "NFDLabelsMissing";

  /**
   * Ours: the policy would have the device plugin and the DRA driver serve the same GPUs on some
   * nodes; nothing changes on them until a deploy label or the policy says which.
   */
  public static final String CONFLICTING_GPU_ALLOCATORS = "ConflictingGpuAllocators";

  /** The original's, for an NVIDIADriver whose nodes another one also selects. */
  public static final String CONFLICTING_NODE_SELECTOR = "ConflictingNodeSelector";

  /** Not in the original: the driver is refused for some node pools (compatibility matrix). */
  public static final String DRIVER_INCOMPATIBLE = "DriverIncompatible";

  /**
   * Not in the original: an NVIDIADriver is not used (no ClusterPolicy sets {@code
   * driver.useNvidiaDriverCRD}, or it cannot run this driver type).
   */
  public static final String NOT_USED = "NotUsed";

  /** Not in the original (it fails at start instead): the API server is too old. */
  public static final String UNSUPPORTED_KUBERNETES_VERSION = "UnsupportedKubernetesVersion";

  /** Not in the original (it keeps ignored policies' status untouched): names the active one. */
  public static final String IGNORED = "Ignored";

  /**
   * Not in the original: fields of the policy this operator accepts but does not act on (type and
   * reason), listed in the message; absent when there are none.
   */
  public static final String IGNORED_FIELDS = "IgnoredFields";

  /**
   * Not in the original: GPU fault remediation is enabled; True (reason {@link
   * #CIRCUIT_BREAKER_OPEN}) while more GPU nodes are faulty than maxFaultyNodes allows, False
   * (reason {@link #REMEDIATION_ACTIVE} or {@link #REMEDIATION_DRY_RUN}) otherwise, with the
   * counts.
   */
  public static final String REMEDIATION_PAUSED = "RemediationPaused";

  public static final String CIRCUIT_BREAKER_OPEN = "CircuitBreakerOpen";
  public static final String REMEDIATION_ACTIVE = "RemediationActive";
  public static final String REMEDIATION_DRY_RUN = "DryRun";

  private Conditions() {}
}

package io.gpuoperator.operator.upgrade;

import java.util.List;

/**
 * Node labels and annotations of the driver upgrade: the original's names (driver name {@code gpu})
 * where it has one, so tooling written for it keeps working.
 */
public final class UpgradeKeys {
  /** Node label: the node's {@link UpgradeState}. */
  public static final String STATE = "nvidia.com/gpu-driver-upgrade-state";

  /** Node label set by users: "true" keeps the node out of upgrades. */
  public static final String SKIP = "nvidia.com/gpu-driver-upgrade.skip";

  /** Pod label set by users: "true" keeps the pod out of drains. */
  public static final String DRAIN_SKIP = "nvidia.com/gpu-driver-upgrade-drain.skip";

  /** Node annotation: "true" asks for an upgrade although the driver pod is current. */
  public static final String REQUESTED = "nvidia.com/gpu-driver-upgrade-requested";

  /** Node annotation: "true" when auto-upgrade is on (read by NVIDIA's k8s-driver-manager). */
  public static final String ENABLED = "nvidia.com/gpu-driver-upgrade-enabled";

  /** Node annotation: the node was unschedulable before the upgrade cordoned it. */
  public static final String INITIAL_UNSCHEDULABLE =
      "nvidia.com/gpu-driver-upgrade.node-initial-state.unschedulable";

  /** Node annotation: epoch seconds when waiting for the waitForCompletion pods began. */
  public static final String WAIT_FOR_JOBS_START =
      "nvidia.com/gpu-driver-upgrade-wait-for-pod-completion-start-time";

  /** Node annotation: epoch seconds when validation began. */
  public static final String VALIDATION_START =
      "nvidia.com/gpu-driver-upgrade-validation-start-time";

  /** Node annotation: epoch seconds when GPU pod eviction began. */
  public static final String POD_DELETION_START =
      "nvidia.com/gpu-driver-upgrade-pod-deletion-start-time";

  /** Node annotation: epoch seconds when the driver pod restart began. */
  public static final String RESTART_START = "nvidia.com/gpu-driver-upgrade-pod-restart-start-time";

  /** Node annotation: epoch seconds when the drain began. */
  public static final String DRAIN_START = "nvidia.com/gpu-driver-upgrade-drain-start-time";

  /**
   * Node annotation: the ControllerRevision hash this upgrade moves the node to; a newer one makes
   * a failed node try again.
   */
  public static final String TARGET_REVISION = "nvidia.com/gpu-driver-upgrade.target-revision";

  /**
   * The revision an orphaned driver pod (its DaemonSet deleted, leaving it running) is measured
   * against: no pod runs it, so the node is upgraded to the DaemonSet that selects it now, and a
   * target of this value is met by any revision of that DaemonSet.
   */
  public static final String ORPHANED_REVISION = "orphaned";

  /**
   * Node annotation: "true" when the new driver pod installs the same driver (same {@code
   * DRIVER_CONFIG_DIGEST}): the pod is restarted without cordon or eviction.
   */
  public static final String RESTART_ONLY = "nvidia.com/gpu-driver-upgrade.restart-only";

  /** Node annotation: why the node's upgrade failed (also sent as an Event). */
  public static final String FAILURE_REASON = "nvidia.com/gpu-driver-upgrade.failure-reason";

  /** Deploy-label value of a GPU client paused while the driver restarts (the original's). */
  public static final String PAUSED = "paused-for-driver-upgrade";

  /** Driver pods carry this label (value {@link #DRIVER_COMPONENT}) whatever their pool. */
  public static final String COMPONENT = "app.kubernetes.io/component";

  public static final String DRIVER_COMPONENT = "nvidia-driver";

  /** The operator-validator's pods; ready again means the node's stack works. */
  public static final String VALIDATOR_APP = "nvidia-operator-validator";

  /** The validator's operand name (its deploy label suffix). */
  public static final String VALIDATOR_OPERAND = "operator-validator";

  /** Container of the driver pod that carries the install's config digest. */
  public static final String DRIVER_CONTAINER = "nvidia-driver-ctr";

  /** Env var on the driver container: digest of what the install depends on. */
  public static final String CONFIG_DIGEST_ENV = "DRIVER_CONFIG_DIGEST";

  /**
   * Operands that use the driver and are stopped while it restarts, by their deploy label (the same
   * set NVIDIA's k8s-driver-manager pauses).
   */
  public static final List<String> GPU_CLIENTS =
      List.of(
          VALIDATOR_OPERAND,
          "container-toolkit",
          "device-plugin",
          "gpu-feature-discovery",
          "dcgm",
          "dcgm-exporter",
          "mig-manager",
          "node-status-exporter");

  private UpgradeKeys() {}
}

package io.gpuoperator.operator.upgrade;

import java.util.Arrays;

/**
 * A node's place in the driver upgrade, kept in its {@code nvidia.com/gpu-driver-upgrade-state}
 * label with the original's values, so the upgrade survives an operator restart and {@code kubectl
 * get nodes -L} shows it.
 */
public enum UpgradeState {
  /** No label yet: the node was never looked at. */
  UNKNOWN(""),
  UPGRADE_REQUIRED("upgrade-required"),
  CORDON_REQUIRED("cordon-required"),
  WAIT_FOR_JOBS_REQUIRED("wait-for-jobs-required"),
  POD_DELETION_REQUIRED("pod-deletion-required"),
  DRAIN_REQUIRED("drain-required"),
  POD_RESTART_REQUIRED("pod-restart-required"),
  VALIDATION_REQUIRED("validation-required"),
  UNCORDON_REQUIRED("uncordon-required"),
  UPGRADE_DONE("upgrade-done"),
  UPGRADE_FAILED("upgrade-failed");

  private final String label;

  UpgradeState(String label) {
    this.label = label;
  }

  /** The label value. */
  public String label() {
    return label;
  }

  /** Between cordon and uncordon: counts against maxParallelUpgrades. */
  public boolean inProgress() {
    return ordinal() >= CORDON_REQUIRED.ordinal() && ordinal() <= UNCORDON_REQUIRED.ordinal();
  }

  /**
   * The state of a label value; an absent, empty or unknown value (e.g. the original's
   * node-maintenance-required, which this operator does not use) is {@link #UNKNOWN}.
   */
  public static UpgradeState of(String label) {
    if (label == null || label.isEmpty()) {
      return UNKNOWN;
    }
    return Arrays.stream(values()).filter(s -> s.label.equals(label)).findFirst().orElse(UNKNOWN);
  }
}

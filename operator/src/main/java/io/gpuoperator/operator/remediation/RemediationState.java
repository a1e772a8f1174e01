package io.gpuoperator.operator.remediation;

import java.util.Arrays;

/**
 * A node's place on the remediation ladder, kept in its {@code nvidia.com/gpu-remediation-state}
 * label so that a restarted operator carries on from there and {@code kubectl get nodes -L} shows
 * it.
 */
public enum RemediationState {
  /** No label: never faulty, or given back. */
  NONE(""),
  /** Tainted {@code nvidia.com/gpu-fault=<type>:NoSchedule}: no new GPU pod lands here. */
  TAINTED("tainted"),
  /** Cordoned; its GPU pods are evicted (policy/v1, disruption budgets honoured). */
  DRAINING("draining"),
  /**
   * A GPU reset was asked of the node's GPU agent; waiting for its answer or the fault to clear.
   */
  RESET_REQUESTED("reset-requested"),
  /** The reset did not clear the fault: a reboot is asked of an external agent. */
  REBOOT_REQUIRED("reboot-required"),
  /** The fault cleared; waiting for the node to be Ready and its validator to pass. */
  VALIDATING("validation-required"),
  /** Back in service (untainted, uncordoned if we cordoned); cooling down. */
  RECOVERED("recovered");

  private final String label;

  RemediationState(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Between taint and back in service: counts against maxConcurrent. */
  public boolean inProgress() {
    return this != NONE && this != RECOVERED;
  }

  /** The state of a label value; absent or unknown is {@link #NONE}. */
  public static RemediationState of(String label) {
    if (label == null || label.isEmpty()) {
      return NONE;
    }
    return Arrays.stream(values()).filter(s -> s.label.equals(label)).findFirst().orElse(NONE);
  }
}

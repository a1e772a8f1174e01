package io.gpuoperator.operator.remediation;

import io.gpuoperator.api.GpuFaultContract;
import java.util.List;

/** Node labels, annotations and the taint of GPU fault remediation (not in the original). */
public final class RemediationKeys {
  /** Node label: the node's {@link RemediationState}. */
  public static final String STATE = "nvidia.com/gpu-remediation-state";

  /** Node annotation: the fault condition type being remediated (e.g. GpuLost). */
  public static final String FAULT = "nvidia.com/gpu-remediation.fault";

  /** Node annotation: whether the node was unschedulable before remediation cordoned it. */
  public static final String INITIAL_UNSCHEDULABLE =
      "nvidia.com/gpu-remediation.node-initial-state.unschedulable";

  /** Node annotation: epoch seconds when the node entered its current state. */
  public static final String STEP_START = "nvidia.com/gpu-remediation.step-start-time";

  /** Node annotation: the GPU reset request token, read by the node's GPU agent. */
  public static final String RESET_REQUESTED = GpuFaultContract.RESET_REQUESTED;

  /**
   * Node annotation: a reboot is asked of an external agent (the value says why); the operator
   * never reboots a node itself.
   */
  public static final String REBOOT_REQUESTED = "nvidia.com/gpu-remediation.reboot-requested";

  /** Node annotation: epoch seconds when the node came back in service (cool-down start). */
  public static final String RECOVERED_AT = "nvidia.com/gpu-remediation.recovered-time";

  /** The taint on a faulty node; its value is the fault condition type. */
  public static final String TAINT = "nvidia.com/gpu-fault";

  public static final String TAINT_EFFECT = "NoSchedule";

  /** Every annotation remediation writes, removed when it gives a node back. */
  public static final List<String> ANNOTATIONS =
      List.of(FAULT, INITIAL_UNSCHEDULABLE, STEP_START, RESET_REQUESTED, REBOOT_REQUESTED);

  private RemediationKeys() {}
}

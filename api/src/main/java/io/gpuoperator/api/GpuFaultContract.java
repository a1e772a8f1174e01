package io.gpuoperator.api;

import java.util.List;

/**
 * What the node agents and the operator's remediation say to each other through the Node object:
 * the GPU fault condition types the plugins write, the GPU reset request the operator writes and
 * the answer the plugin writes. Kept here, in the module both depend on, so the two sides cannot
 * drift apart.
 */
public final class GpuFaultContract {
  public static final String XID = "GpuXidError";
  public static final String ECC = "GpuEccError";
  public static final String NVLINK = "GpuNvlinkError";
  public static final String LOST = "GpuLost";
  public static final String THERMAL = "GpuThermal";

  /** Every fault condition type, most severe first (the first True one names a node's fault). */
  public static final List<String> FAULT_TYPES = List.of(LOST, ECC, XID, NVLINK, THERMAL);

  /**
   * Node annotation written by the operator: a request token (epoch seconds of the request) asking
   * the GPU-serving agent on the node to reset its faulty GPUs once.
   */
  public static final String RESET_REQUESTED = "nvidia.com/gpu-remediation.reset-requested";

  /**
   * Node condition written by the agent as its answer: True (reason {@link #RESET_DONE}) when every
   * faulty GPU was reset, False (reason {@link #RESET_FAILED}) otherwise; the message starts with
   * {@code request <token>:} so an answer is never taken for a later request's.
   */
  public static final String RESET_CONDITION = "GpuReset";

  public static final String RESET_DONE = "ResetDone";
  public static final String RESET_FAILED = "ResetFailed";

  /** The prefix of a reset answer's message for this request token. */
  public static String answerPrefix(String token) {
    return "request " + token + ":";
  }

  private GpuFaultContract() {}
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Readiness of one operand (one DaemonSet) across the nodes it targets. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class OperandStatus {
  public String name;
  public State state;
  public Integer nodesReady;
  public Integer nodesDesired;
  public String reason;
  public String message;
}

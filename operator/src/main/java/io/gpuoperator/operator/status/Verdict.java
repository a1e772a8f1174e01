package io.gpuoperator.operator.status;

import io.gpuoperator.api.common.State;

/**
 * What a pass concluded about a policy-like resource (ClusterPolicy, NVIDIADriver, GPUCluster),
 * written as its state and its Ready and Error conditions by {@link PolicyStatusModel#fill}: the
 * reason and message go on Ready, and on Error too when it is an error.
 *
 * @param state the resource's state
 * @param ready Ready's status
 * @param reason the conditions' reason
 * @param message the conditions' message
 * @param error Error's status
 */
public record Verdict(State state, boolean ready, String reason, String message, boolean error) {
  /** Ready. */
  public static Verdict ready(String reason, String message) {
    return new Verdict(State.READY, true, reason, message, false);
  }

  /** Not ready yet, without an error (operands still rolling out). */
  public static Verdict notReady(String reason, String message) {
    return new Verdict(State.NOT_READY, false, reason, message, false);
  }

  /** Not ready because of an error, which the Error condition names too. */
  public static Verdict error(String reason, String message) {
    return new Verdict(State.NOT_READY, false, reason, message, true);
  }

  /** Left alone: another resource acts instead. */
  public static Verdict ignored(String reason, String message) {
    return new Verdict(State.IGNORED, false, reason, message, false);
  }
}

package io.gpuoperator.operator.status;

/**
 * Readiness of one operand as observed from its DaemonSets (operands without a DaemonSet are ready
 * once applied).
 *
 * @param reason why it is not ready (null when ready)
 */
public record OperandReadiness(
    String name, boolean ready, int nodesReady, int nodesDesired, String reason) {

  /** An operand with no DaemonSet (RBAC, RuntimeClasses, metrics Service). */
  public static OperandReadiness noDaemonSet(String name) {
    return new OperandReadiness(name, true, 0, 0, null);
  }
}

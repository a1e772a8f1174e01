package io.gpuoperator.operator.remediation;

import io.gpuoperator.api.GpuFaultContract;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Which rungs of the ladder each fault class climbs, as data. Every class is tainted; a GPU that
 * lost its memory, its links or its bus is drained, reset and, failing that, rebooted; a GPU held
 * down by heat or the power brake works, slowly, and no reset cools it, so it is only tainted until
 * the condition clears.
 */
public enum FaultLadder {
  DRAIN,
  RESET,
  REBOOT;

  private static final Set<FaultLadder> FULL = EnumSet.allOf(FaultLadder.class);

  private static final Map<String, Set<FaultLadder>> BY_TYPE =
      Map.of(
          GpuFaultContract.XID, FULL,
          GpuFaultContract.ECC, FULL,
          GpuFaultContract.NVLINK, FULL,
          GpuFaultContract.LOST, FULL,
          GpuFaultContract.THERMAL, EnumSet.noneOf(FaultLadder.class));

  /** The rungs past the taint for a fault condition type (an unknown type: the full ladder). */
  public static Set<FaultLadder> of(String conditionType) {
    return BY_TYPE.getOrDefault(conditionType, FULL);
  }
}

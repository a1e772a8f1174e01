package io.gpuoperator.sim.kubelet;

import io.gpuoperator.config.GoDuration;
import java.time.Duration;

/**
 * A GPU fault the simulation injects, from a cluster file's {@code faults:} list: an event (an XID,
 * or an ECC error), repeated {@code count} times {@code every} apart for a storm, and/or a state (a
 * GPU fallen off the bus, clocks held down by a thermal slowdown) that lasts {@code recoverAfter},
 * or for good when that is null. With both, the state is set first, then the events are sent, as
 * the driver reports XID 79 for a GPU that has already fallen off the bus.
 *
 * @param node the node's name, as declared (count expanded: {@code h100-0})
 * @param gpu the GPU's index on the node
 * @param at when, counted from the moment the simulation is first ready
 * @param xid the XID to send, or 0
 * @param ecc {@code doubleBit}, {@code singleBit}, or null
 * @param count how many times the event is sent (1 without a storm)
 * @param every the time between two events of a storm
 * @param lost the GPU falls off the bus (its calls answer GPU_IS_LOST)
 * @param thermal the GPU's clocks are held down by a hardware thermal slowdown
 * @param recoverAfter how long the state lasts; null: it never recovers
 */
public record FaultSpec(
    String node,
    int gpu,
    Duration at,
    long xid,
    String ecc,
    int count,
    Duration every,
    boolean lost,
    boolean thermal,
    Duration recoverAfter) {

  public static final String DOUBLE_BIT = "doubleBit";
  public static final String SINGLE_BIT = "singleBit";

  /** True when the fault sends events (an XID or an ECC error). */
  public boolean sendsEvents() {
    return xid > 0 || ecc != null;
  }

  /** True when the fault sets a state (lost, thermal). */
  public boolean setsState() {
    return lost || thermal;
  }

  /** A short description for logs: {@code node h100-0 GPU 1: XID 79, lost}. */
  public String describe() {
    StringBuilder s = new StringBuilder("node " + node + " GPU " + gpu + ":");
    if (lost) {
      s.append(" fallen off the bus");
    }
    if (thermal) {
      s.append(" thermal slowdown");
    }
    if (setsState()) {
      s.append(
          recoverAfter == null
              ? " (never recovers)"
              : " (for " + GoDuration.format(recoverAfter) + ")");
    }
    if (sendsEvents()) {
      s.append(setsState() ? ", then " : " ");
      s.append(xid > 0 ? "XID " + xid : ecc + " ECC error");
      if (count > 1) {
        s.append(" x").append(count).append(" every ").append(GoDuration.format(every));
      }
    }
    return s.toString();
  }
}

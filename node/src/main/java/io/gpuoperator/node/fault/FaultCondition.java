package io.gpuoperator.node.fault;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The Node condition one fault class should have now.
 *
 * @param type the condition type, e.g. {@code GpuLost}
 * @param status {@code True} or {@code False}
 * @param reason CamelCase, e.g. {@code FallenOffTheBus} or {@code Recovered}
 * @param message the GPUs, XIDs, counts and first/last seen times
 * @param identity what must be written at once when it changes (status, reason, GPUs and XIDs); a
 *     message that differs only in times and counts is refreshed less often
 * @param lastSeenMillis when the fault was last seen (0 when none): the heartbeat time
 */
public record FaultCondition(
    String type,
    String status,
    String reason,
    String message,
    String identity,
    long lastSeenMillis) {

  public static final String TRUE = "True";
  public static final String FALSE = "False";

  /** A time as conditions carry it (RFC 3339, whole seconds): messages and the condition's own. */
  static String time(long millis) {
    return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString();
  }
}

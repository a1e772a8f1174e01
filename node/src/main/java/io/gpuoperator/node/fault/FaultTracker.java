package io.gpuoperator.node.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The faults of one node's GPUs over time, and the condition each class should have. An immediate
 * class is escalated (condition True) at its first sign; a sustained one once it has been seen in
 * every reading for the escalation window, and forgotten, never escalated, when a reading no longer
 * shows it. An escalated fault recovers (condition False, reason {@code Recovered}) after the
 * recovery period without a new sign; a zero recovery period means never. A class that was never
 * escalated has no condition at all, so a healthy node carries none of ours. Pure and not
 * thread-safe: time is passed in, {@link GpuFaultReporter} owns it.
 */
public final class FaultTracker {
  /** Reason of a condition whose faults have all recovered. */
  public static final String RECOVERED = "Recovered";

  private final long escalationMillis;
  private final long recoveryMillis;
  private final Duration recovery;
  private final Map<String, Entry> entries = new TreeMap<>();
  private final Set<FaultClass> escalatedOnce = EnumSet.noneOf(FaultClass.class);

  /**
   * @param escalation how long a sustained fault must last before it is reported
   * @param recovery quiet time after which a reported fault has recovered; zero: never
   */
  public FaultTracker(Duration escalation, Duration recovery) {
    this.escalationMillis = Math.max(0, escalation.toMillis());
    this.recovery = recovery;
    this.recoveryMillis =
        recovery.compareTo(Duration.ofDays(36_500)) > 0 ? 0 : Math.max(0, recovery.toMillis());
  }

  private static final class Entry {
    final FaultClass faultClass;
    final String gpuUuid;
    final long firstSeen;
    long lastSeen;
    long count;
    final TreeSet<Long> xids = new TreeSet<>();
    String reason;
    String detail;
    boolean escalated;

    Entry(FaultClass faultClass, String gpuUuid, long firstSeen) {
      this.faultClass = faultClass;
      this.gpuUuid = gpuUuid;
      this.firstSeen = firstSeen;
    }
  }

  private static String key(FaultClass c, String uuid) {
    return c.ordinal() + "/" + uuid;
  }

  /** One sign of a fault, seen now (an event, or a reading). */
  public void observe(GpuFault f, long now) {
    Entry e =
        entries.computeIfAbsent(
            key(f.faultClass(), f.gpuUuid()), k -> new Entry(f.faultClass(), f.gpuUuid(), now));
    e.lastSeen = now;
    e.count++;
    if (f.xid() > 0) {
      e.xids.add(f.xid());
    }
    e.reason = f.reason();
    e.detail = f.detail();
    if (!e.escalated && (f.faultClass().immediate() || now - e.firstSeen >= escalationMillis)) {
      e.escalated = true;
      escalatedOnce.add(f.faultClass());
    }
  }

  /**
   * The faults one reading of every GPU shows now. A sustained fault not escalated yet and absent
   * from this reading was transient: it is forgotten.
   */
  public void observeReading(List<GpuFault> seen, long now) {
    Set<String> keys = new TreeSet<>();
    for (GpuFault f : seen) {
      observe(f, now);
      keys.add(key(f.faultClass(), f.gpuUuid()));
    }
    entries
        .entrySet()
        .removeIf(
            e ->
                !e.getValue().faultClass.immediate()
                    && !e.getValue().escalated
                    && !keys.contains(e.getKey()));
  }

  /**
   * A condition this node already carried (written before a restart): True until the recovery
   * period has passed since it was last seen, as if its faults were still known.
   */
  public void restore(FaultClass c, String reason, String message, long firstSeen, long lastSeen) {
    String k = key(c, "");
    if (entries.keySet().stream().anyMatch(x -> x.startsWith(c.ordinal() + "/"))) {
      return;
    }
    Entry e = new Entry(c, "", firstSeen);
    e.lastSeen = lastSeen;
    e.reason = reason;
    e.detail = message;
    e.escalated = true;
    entries.put(k, e);
    escalatedOnce.add(c);
  }

  /**
   * The GPUs with an escalated fault, by UUID; an empty UUID stands for a condition restored from
   * before a restart, whose GPUs are not known.
   */
  public Set<String> faultyGpus() {
    Set<String> out = new TreeSet<>();
    entries.values().stream().filter(e -> e.escalated).forEach(e -> out.add(e.gpuUuid));
    return out;
  }

  /**
   * Forgets every fault of these GPUs (and the restored ones of unknown GPUs): they were reset, so
   * what they showed before says nothing about them now. A fault seen again afterwards counts anew.
   */
  public void reset(Set<String> gpuUuids) {
    entries.values().removeIf(e -> e.gpuUuid.isEmpty() || gpuUuids.contains(e.gpuUuid));
  }

  /** Forgets escalated faults quiet for the recovery period; true when any recovered. */
  public boolean tick(long now) {
    if (recoveryMillis <= 0) {
      return false;
    }
    return entries.values().removeIf(e -> e.escalated && now - e.lastSeen >= recoveryMillis);
  }

  /** The condition of every class that is or was escalated; none for a class never escalated. */
  public List<FaultCondition> conditions() {
    List<FaultCondition> out = new ArrayList<>();
    for (FaultClass c : FaultClass.values()) {
      List<Entry> active =
          entries.values().stream().filter(e -> e.faultClass == c && e.escalated).toList();
      if (active.isEmpty()) {
        if (escalatedOnce.contains(c)) {
          out.add(
              new FaultCondition(
                  c.conditionType(),
                  FaultCondition.FALSE,
                  RECOVERED,
                  "no sign of this fault for " + recovery.toSeconds() + "s (the recovery period)",
                  FaultCondition.FALSE + "|" + RECOVERED,
                  0));
        }
        continue;
      }
      Entry latest = active.stream().max(Comparator.comparingLong(e -> e.lastSeen)).get();
      StringBuilder message = new StringBuilder();
      StringBuilder identity = new StringBuilder(FaultCondition.TRUE + "|" + latest.reason);
      for (Entry e : active) {
        if (message.length() > 0) {
          message.append("; ");
        }
        identity.append('|').append(e.gpuUuid).append(e.xids);
        if (e.gpuUuid.isEmpty()) {
          message.append(e.detail);
          continue;
        }
        message
            .append(e.gpuUuid)
            .append(": ")
            .append(describe(e))
            .append(" (")
            .append(e.reason)
            .append(", ")
            .append(e.count)
            .append(e.count == 1 ? " time" : " times")
            .append(", first seen ")
            .append(FaultCondition.time(e.firstSeen))
            .append(", last seen ")
            .append(FaultCondition.time(e.lastSeen))
            .append(')');
      }
      out.add(
          new FaultCondition(
              c.conditionType(),
              FaultCondition.TRUE,
              latest.reason,
              message.toString(),
              identity.toString(),
              latest.lastSeen));
    }
    return out;
  }

  private static String describe(Entry e) {
    if (e.xids.isEmpty()) {
      return e.detail;
    }
    List<String> xids = e.xids.stream().map(String::valueOf).toList();
    return (xids.size() == 1 ? "XID " : "XIDs ") + String.join(", ", xids);
  }
}

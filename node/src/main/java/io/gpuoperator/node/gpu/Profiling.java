package io.gpuoperator.node.gpu;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * One reading of a GPU's profiling fields. Every {@link ProfilingMetric} is in at most one of the
 * maps: {@code values} (read now, in the metric's unit), {@code unavailable} (this GPU cannot give
 * it, with a sentence saying why, so nothing is left blank silently), or neither (it can, but this
 * reading has none yet: GPM and NVLink rates need a previous sample).
 *
 * @param values the metrics read now
 * @param unavailable the metrics this GPU cannot give, with the reason
 */
public record Profiling(
    Map<ProfilingMetric, Double> values, Map<ProfilingMetric, String> unavailable) {

  /** Why a GPU without GPM cannot give the GPM fields. */
  public static final String NO_GPM =
      "NVML's GPU performance monitoring (GPM) needs a Hopper or newer GPU";

  /** Why a GPU without an active NVLink cannot give the NVLink fields. */
  public static final String NO_NVLINK = "this GPU has no active NVLink";

  public Profiling {
    values = Collections.unmodifiableMap(copy(values));
    unavailable = Collections.unmodifiableMap(copy(unavailable));
    for (ProfilingMetric m : values.keySet()) {
      if (unavailable.containsKey(m)) {
        throw new IllegalArgumentException(m + " is both read and unavailable");
      }
    }
  }

  private static <V> Map<ProfilingMetric, V> copy(Map<ProfilingMetric, V> m) {
    return m.isEmpty() ? new EnumMap<>(ProfilingMetric.class) : new EnumMap<>(m);
  }

  /** No metric can be given, for one reason (a backend without profiling, a GPU instance). */
  public static Profiling none(String reason) {
    Map<ProfilingMetric, String> why = new EnumMap<>(ProfilingMetric.class);
    for (ProfilingMetric m : ProfilingMetric.values()) {
      why.put(m, reason);
    }
    return new Profiling(Map.of(), why);
  }

  /** The metric's value now, NaN when this reading has none. */
  public double value(ProfilingMetric m) {
    Double v = values.get(m);
    return v == null ? Double.NaN : v;
  }
}

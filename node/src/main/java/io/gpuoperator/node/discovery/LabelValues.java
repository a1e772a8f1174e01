package io.gpuoperator.node.discovery;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Turns free text (product names, DMI machine types) into valid Kubernetes label values. */
public final class LabelValues {
  private static final int MAX = 63;

  private LabelValues() {}

  /**
   * The original's {@code sanitise}: drop characters outside {@code [A-Za-z0-9-_. ]}, then join the
   * remaining words with {@code -}.
   */
  public static String sanitise(String input) {
    String kept = input == null ? "" : input.replaceAll("[^A-Za-z0-9\\-_. ]", "");
    return Arrays.stream(kept.trim().split("\\s+"))
        .filter(s -> !s.isEmpty())
        .collect(Collectors.joining("-"));
  }

  /** Sanitised parts joined with {@code -}, e.g. {@code NVIDIA-A100-SXM4-40GB-MIG-1g.5gb}. */
  public static String product(String... parts) {
    return Arrays.stream(parts).map(LabelValues::sanitise).collect(Collectors.joining("-"));
  }

  /**
   * A value the API server accepts: at most 63 characters, starting and ending with an alphanumeric
   * character; {@code fallback} when nothing valid remains.
   */
  public static String valid(String value, String fallback) {
    String v = value.replaceAll("^[^A-Za-z0-9]+", "");
    v = v.length() > MAX ? v.substring(0, MAX) : v;
    v = v.replaceAll("[^A-Za-z0-9]+$", "");
    return v.isEmpty() ? fallback : v;
  }
}

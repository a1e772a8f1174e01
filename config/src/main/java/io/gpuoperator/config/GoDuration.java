package io.gpuoperator.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go's {@code time.ParseDuration} syntax ({@code 60s}, {@code 1m30s}, {@code 500ms}, ...). */
public final class GoDuration {
  /** What {@code infinite} parses to: sleep forever (label once, keep running). */
  public static final Duration INFINITE = ChronoUnit.FOREVER.getDuration();

  private static final Pattern PART =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  /** Go's own limit: a duration is an int64 of nanoseconds. */
  private static final double MAX_NANOS = 9.1e18;

  private GoDuration() {}

  /** Parses a Go duration, or {@code infinite}; IllegalArgumentException names the value. */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "expected a duration such as 60s, 1m30s or 500ms, got \"\"");
    }
    String s = text.trim();
    if (s.equals("infinite")) {
      return INFINITE;
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = PART.matcher(s);
    int pos = 0;
    double nanos = 0;
    while (m.find() && m.start() == pos) {
      double v = Double.parseDouble(m.group(1));
      nanos +=
          v
              * switch (m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
              };
      pos = m.end();
    }
    if (pos != s.length() || pos == 0) {
      throw new IllegalArgumentException(
          "expected a duration such as 60s, 1m30s, 500ms or infinite, got " + Values.quote(text));
    }
    if (nanos > MAX_NANOS) {
      throw new IllegalArgumentException(
          "duration " + Values.quote(text) + " is too long; at most 2540400h (about 290 years)");
    }
    return Duration.ofNanos(Math.round(nanos));
  }

  /** Formats like Go for whole seconds and minutes ({@code 60s} stays {@code 1m0s}). */
  public static String format(Duration d) {
    if (d.equals(INFINITE)) {
      return "infinite";
    }
    long s = d.getSeconds();
    if (d.getNano() != 0 || s == 0) {
      return d.toMillis() + "ms";
    }
    StringBuilder sb = new StringBuilder();
    if (s >= 3600) {
      sb.append(s / 3600).append('h');
      s %= 3600;
      sb.append(s / 60).append('m');
    } else if (s >= 60) {
      sb.append(s / 60).append('m');
    }
    sb.append(s % 60).append('s');
    return sb.toString();
  }
}

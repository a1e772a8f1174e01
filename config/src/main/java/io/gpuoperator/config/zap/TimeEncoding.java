package io.gpuoperator.config.zap;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How a log line's time is written, as zap's time encoders write it ({@code --zap-time-encoding}).
 * The epoch forms are JSON numbers (seconds or milliseconds as a float, nanoseconds as an integer);
 * the others are strings in the process's time zone, as Go formats {@code time.Now()}.
 */
public enum TimeEncoding {
  /** Seconds since the epoch as a float: zap's production default. */
  EPOCH(true),
  /** Milliseconds since the epoch as a float. */
  MILLIS(true),
  /** Nanoseconds since the epoch as an integer. */
  NANOS(true),
  /** {@code 2006-01-02T15:04:05.000Z0700}. */
  ISO8601(false),
  /** {@code 2006-01-02T15:04:05Z07:00}: controller-runtime's default when no flag is given. */
  RFC3339(false),
  /** {@code 2006-01-02T15:04:05.999999999Z07:00} (trailing zeros of the fraction dropped). */
  RFC3339NANO(false);

  private static final DateTimeFormatter ISO8601_FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXX", Locale.ROOT);
  private static final DateTimeFormatter RFC3339_FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX", Locale.ROOT);
  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss", Locale.ROOT);
  private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("XXX", Locale.ROOT);

  private final boolean numeric;

  TimeEncoding(boolean numeric) {
    this.numeric = numeric;
  }

  /** Whether {@link #encode} gives a JSON number (else a string to quote). */
  public boolean numeric() {
    return numeric;
  }

  /**
   * The flag's value, any case, as controller-runtime accepts it: epoch, millis, nanos, iso8601,
   * rfc3339 or rfc3339nano; also {@code nano}, the spelling controller-runtime's help text and
   * NVIDIA's chart comment give (controller-runtime itself refuses it).
   *
   * @throws IllegalArgumentException with controller-runtime's words and the accepted values
   */
  public static TimeEncoding parse(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "epoch" -> EPOCH;
      case "millis" -> MILLIS;
      case "nanos", "nano" -> NANOS;
      case "iso8601" -> ISO8601;
      case "rfc3339" -> RFC3339;
      case "rfc3339nano" -> RFC3339NANO;
      default ->
          throw new IllegalArgumentException(
              "invalid time-encoding value \""
                  + value
                  + "\" (epoch, millis, nanos, iso8601, rfc3339 or rfc3339nano)");
    };
  }

  /** The time as this encoding writes it, in {@code zone} for the string forms. */
  public String encode(Instant time, ZoneId zone) {
    long nanos = time.getEpochSecond() * 1_000_000_000L + time.getNano();
    return switch (this) {
      case EPOCH -> plain(nanos / 1e9);
      case MILLIS -> plain(nanos / 1e6);
      case NANOS -> Long.toString(nanos);
      case ISO8601 -> ISO8601_FORMAT.format(time.atZone(zone));
      case RFC3339 -> RFC3339_FORMAT.format(time.atZone(zone));
      case RFC3339NANO -> rfc3339Nano(time.atZone(zone));
    };
  }

  /** A float as Go's strconv 'f' format with the shortest precision writes it: no exponent. */
  private static String plain(double value) {
    String s = BigDecimal.valueOf(value).toPlainString();
    return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
  }

  private static String rfc3339Nano(ZonedDateTime t) {
    StringBuilder out = new StringBuilder(SECONDS.format(t));
    if (t.getNano() != 0) {
      String fraction = String.format(Locale.ROOT, "%09d", t.getNano());
      out.append('.').append(fraction.replaceAll("0+$", ""));
    }
    return out.append(OFFSET.format(t)).toString();
  }
}

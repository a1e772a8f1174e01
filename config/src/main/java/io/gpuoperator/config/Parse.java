package io.gpuoperator.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Parsers for the values settings take, each with a bound: numbers in a range, durations within
 * limits, names as Kubernetes checks them, image references. They throw IllegalArgumentException
 * whose message says what was expected and shows the value quoted and shortened; {@link Settings}
 * and {@link Document#error} prepend where the value came from.
 */
public final class Parse {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern LABEL_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern QUANTITY =
      Pattern.compile(
          "[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?[0-9]+)?");

  /**
   * An image reference as the container runtimes accept it: {@code [host[:port]/]path[:tag]
   * [@digest]}, lowercase path components.
   */
  private static final Pattern IMAGE =
      Pattern.compile(
          "(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
              + "(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?"
              + "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
              + "(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
              + "(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?");

  private Parse() {}

  /**
   * {@code s} when it has at most {@code max} characters and matches {@code p}; otherwise refused
   * with {@code expected} (what was expected, up to "got ") and the value quoted.
   */
  private static String matching(String s, int max, Pattern p, String expected) {
    if (s.length() > max || !p.matcher(s).matches()) {
      throw new IllegalArgumentException(expected + Values.quote(s));
    }
    return s;
  }

  /** true/false, 1/0, yes/no, t/f, on/off (any case). */
  public static boolean bool(String s) {
    return switch (s.strip().toLowerCase(Locale.ROOT)) {
      case "true", "1", "t", "yes", "y", "on" -> true;
      case "false", "0", "f", "no", "n", "off" -> false;
      default ->
          throw new IllegalArgumentException("expected true or false, got " + Values.quote(s));
    };
  }

  /** A whole number from {@code min} to {@code max}. */
  public static Function<String, Integer> integer(int min, int max) {
    return s -> {
      long v;
      try {
        v = Long.parseLong(s.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "expected a whole number from " + min + " to " + max + ", got " + Values.quote(s));
      }
      return checkRange(v, min, max, s);
    };
  }

  /** Checks a number already parsed (e.g. from a file) against a range. */
  public static int checkRange(long v, long min, long max, Object shown) {
    if (v < min || v > max) {
      throw new IllegalArgumentException(
          "expected a whole number from "
              + min
              + " to "
              + max
              + ", got "
              + (shown instanceof String s ? Values.quote(s) : shown));
    }
    return (int) v;
  }

  /** A TCP port, 1 to 65535 ({@code allowZero}: 0 asks the system for a free one). */
  public static Function<String, Integer> port(boolean allowZero) {
    return integer(allowZero ? 0 : 1, 65535);
  }

  /**
   * A Go duration ({@code 500ms}, {@code 30s}, {@code 1m30s}) from {@code min} to {@code max};
   * {@code infinite} only when {@code max} is {@link GoDuration#INFINITE}.
   */
  public static Function<String, Duration> duration(Duration min, Duration max) {
    return s -> {
      Duration d = GoDuration.parse(s);
      if (d.equals(GoDuration.INFINITE) && !max.equals(GoDuration.INFINITE)) {
        throw new IllegalArgumentException(
            "expected a duration up to " + GoDuration.format(max) + ", got " + Values.quote(s));
      }
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new IllegalArgumentException(
            "expected a duration from "
                + GoDuration.format(min)
                + " to "
                + GoDuration.format(max)
                + ", got "
                + Values.quote(s));
      }
      return d;
    };
  }

  /** One of the given names (exact, after trimming); the map's order is the one messages show. */
  public static <T> Function<String, T> oneOf(String what, Map<String, T> values) {
    Map<String, T> copy = new LinkedHashMap<>(values);
    return s -> {
      T v = copy.get(s.strip());
      if (v == null) {
        throw new IllegalArgumentException(
            "unknown "
                + what
                + " "
                + Values.quote(s)
                + "; expected "
                + Values.oneOf(List.copyOf(copy.keySet())));
      }
      return v;
    };
  }

  /** One of an enum's constants, by the spelling {@code spelling} gives each, as above. */
  public static <E extends Enum<E>> Function<String, E> oneOf(
      String what, E[] constants, Function<E, String> spelling) {
    Map<String, E> m = new LinkedHashMap<>();
    for (E e : constants) {
      m.put(spelling.apply(e), e);
    }
    return oneOf(what, m);
  }

  /**
   * One of an enum's constants as flags, variables and files spell it ({@link Values#kebab}: {@code
   * TYPE_INDEX} is {@code type-index}), in any case, after trimming; the error lists the spellings.
   */
  public static <E extends Enum<E>> Function<String, E> constant(String what, E[] constants) {
    Function<String, E> byName = oneOf(what, constants, Values::kebab);
    return s -> byName.apply(s.strip().toLowerCase(Locale.ROOT));
  }

  /** One of the given names, returned as given. */
  public static Function<String, String> oneOf(String what, List<String> names) {
    Map<String, String> m = new LinkedHashMap<>();
    names.forEach(n -> m.put(n, n));
    return oneOf(what, m);
  }

  /** A file system path (not blank, no NUL). */
  public static Path path(String s) {
    if (s.isBlank()) {
      throw new IllegalArgumentException("expected a path, got \"\"");
    }
    try {
      return Path.of(s);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("not a usable path: " + Values.quote(s));
    }
  }

  /** An RFC 1123 label: a namespace name, at most 63 lowercase letters, digits and '-'. */
  public static String dnsLabel(String s) {
    return matching(
        s,
        63,
        DNS_LABEL,
        "expected a name of at most 63 lowercase letters, digits and '-', starting and ending"
            + " with a letter or digit (like a namespace), got ");
  }

  /** An RFC 1123 subdomain: a node or object name, at most 253 characters. */
  public static String dnsSubdomain(String s) {
    return matching(
        s,
        253,
        DNS_SUBDOMAIN,
        "expected a name of at most 253 lowercase letters, digits, '-' and '.', starting and"
            + " ending with a letter or digit, got ");
  }

  /** A label or annotation key: {@code [prefix/]name}, the prefix a DNS subdomain. */
  public static String labelKey(String s) {
    int slash = s.indexOf('/');
    String prefix = slash < 0 ? null : s.substring(0, slash);
    String name = slash < 0 ? s : s.substring(slash + 1);
    boolean ok =
        name.length() <= 63
            && LABEL_NAME.matcher(name).matches()
            && (prefix == null
                || (prefix.length() <= 253 && DNS_SUBDOMAIN.matcher(prefix).matches()));
    if (!ok) {
      throw new IllegalArgumentException(
          "expected a label key: an optional DNS-subdomain prefix and '/', then at most 63"
              + " letters, digits, '-', '_' and '.', starting and ending with a letter or digit;"
              + " got "
              + Values.quote(s));
    }
    return s;
  }

  /** A label value: empty, or at most 63 letters, digits, '-', '_' and '.'. */
  public static String labelValue(String s) {
    return s.isEmpty()
        ? s
        : matching(
            s,
            63,
            LABEL_NAME,
            "expected a label value: at most 63 letters, digits, '-', '_' and '.', starting and"
                + " ending with a letter or digit; got ");
  }

  /** A resource quantity such as {@code 32}, {@code 500m}, {@code 256Gi}. */
  public static String quantity(String s) {
    return matching(s, 64, QUANTITY, "expected a quantity such as 32, 500m or 256Gi, got ");
  }

  /** A container image reference such as {@code nvcr.io/nvidia/driver:550.54.15}. */
  public static String image(String s) {
    return matching(
        s,
        512,
        IMAGE,
        "expected an image reference such as nvcr.io/nvidia/driver:550.54.15"
            + " (registry/path[:tag][@sha256:digest], lowercase path), got ");
  }
}

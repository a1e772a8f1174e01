package io.gpuoperator.config;

import java.util.Collection;
import java.util.stream.Collectors;

/**
 * How a value a user gave appears in a message: quoted, with control characters escaped (a value
 * never moves the terminal's cursor or changes its colours), and shortened, so a megabyte of input
 * does not come back on stderr.
 */
public final class Values {
  /** Characters of a value shown before it is cut. */
  public static final int MAX_SHOWN = 64;

  private Values() {}

  /** {@code "value"}, escaped and shortened; {@code null} for null. */
  public static String quote(Object value) {
    if (value == null) {
      return "null";
    }
    String s = value.toString();
    StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_SHOWN) + 16).append('"');
    int shown = 0;
    int i = 0;
    while (i < s.length() && shown < MAX_SHOWN) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      shown++;
      switch (cp) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (Character.isISOControl(cp)
              || Character.getType(cp) == Character.FORMAT
              || Character.getType(cp) == Character.UNASSIGNED
              || Character.getType(cp) == Character.SURROGATE) {
            out.append(String.format("\\u%04x", cp & 0xFFFF));
          } else {
            out.appendCodePoint(cp);
          }
        }
      }
    }
    out.append('"');
    if (i < s.length()) {
      int total = s.codePointCount(0, s.length());
      out.append("… (").append(total).append(" characters)");
    }
    return out.toString();
  }

  /**
   * The first line of a library's message with Java type names and class paths removed, for
   * messages that pass a library's words on to a user.
   */
  public static String plain(String message) {
    if (message == null) {
      return "";
    }
    String m = message.strip().lines().findFirst().orElse("").strip();
    m = m.replaceAll("`[^`]*`", "a value");
    m = m.replaceAll("\\b(java|javax|com|io|org|sun|jdk)\\.[A-Za-z0-9_.$]+", "a value");
    m = m.replaceAll("\\s*\\(through reference chain:.*$", "");
    return m;
  }

  /** A value as a message shows it: text quoted (as {@link #quote}), numbers and booleans bare. */
  public static String show(Object value) {
    if (value instanceof Number || value instanceof Boolean) {
      String s = value.toString();
      return s.length() <= MAX_SHOWN ? s : quote(s);
    }
    return quote(value);
  }

  /**
   * An enum constant as flags, labels and config files spell it: its name in lower case with {@code
   * -} for {@code _} ({@code VM_PASSTHROUGH}: {@code vm-passthrough}).
   */
  public static String kebab(Enum<?> constant) {
    return constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** "a, b or c" for the accepted values of a setting. */
  public static String oneOf(Collection<?> accepted) {
    var list = accepted.stream().map(String::valueOf).toList();
    if (list.size() <= 1) {
      return String.join("", list);
    }
    return list.subList(0, list.size() - 1).stream().collect(Collectors.joining(", "))
        + " or "
        + list.get(list.size() - 1);
  }
}

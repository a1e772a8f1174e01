package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Renders a TOML document tree (as Jackson's TOML parser reads it) the way containerd's own {@code
 * config dump} lays it out: keys of a table first, then each sub-table under its own {@code
 * [a."b.c".d]} header, arrays of tables as {@code [[...]]}, two-space indents. Used for files this
 * project owns whole (drop-ins) and for tables appended to a user's file.
 */
final class TomlWriter {
  private static final Pattern BARE_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  private TomlWriter() {}

  /** A whole document. */
  static String document(ObjectNode root) {
    StringBuilder out = new StringBuilder();
    writeKeys(out, root, "");
    writeTables(out, root, List.of(), 0);
    return out.toString();
  }

  /**
   * The table at {@code path} with its sub-tables, each under its own header, indented from the
   * first column (it goes into someone else's file).
   */
  static String table(List<String> path, ObjectNode table) {
    StringBuilder out = new StringBuilder();
    writeTable(out, path, table, path.size() - 1);
    return out.toString();
  }

  private static void writeTable(StringBuilder out, List<String> path, ObjectNode table, int base) {
    boolean onlyTables = !table.isEmpty();
    for (JsonNode v : table) {
      onlyTables &= isTable(v) || isTableArray(v);
    }
    // A table holding only tables needs no header of its own: its sub-tables' headers imply it.
    if (!onlyTables) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(indent(path.size() - 1 - base)).append('[').append(path(path)).append("]\n");
      writeKeys(out, table, indent(path.size() - base));
    }
    writeTables(out, table, path, base);
  }

  private static void writeKeys(StringBuilder out, ObjectNode table, String indent) {
    for (Iterator<Map.Entry<String, JsonNode>> it = table.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!isTable(e.getValue()) && !isTableArray(e.getValue())) {
        out.append(indent).append(key(e.getKey())).append(" = ").append(value(e.getValue()));
        out.append('\n');
      }
    }
  }

  private static void writeTables(
      StringBuilder out, ObjectNode table, List<String> path, int base) {
    for (Iterator<Map.Entry<String, JsonNode>> it = table.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      List<String> sub = new ArrayList<>(path);
      sub.add(e.getKey());
      if (isTable(e.getValue())) {
        writeTable(out, sub, (ObjectNode) e.getValue(), base);
      } else if (isTableArray(e.getValue())) {
        for (JsonNode element : e.getValue()) {
          out.append('\n').append(indent(sub.size() - 1 - base)).append("[[").append(path(sub));
          out.append("]]\n");
          writeKeys(out, (ObjectNode) element, indent(sub.size() - base));
          writeTables(out, (ObjectNode) element, sub, base);
        }
      }
    }
  }

  private static boolean isTable(JsonNode n) {
    return n.isObject();
  }

  private static boolean isTableArray(JsonNode n) {
    if (!n.isArray() || n.isEmpty()) {
      return false;
    }
    for (JsonNode e : n) {
      if (!e.isObject()) {
        return false;
      }
    }
    return true;
  }

  private static String indent(int level) {
    return "  ".repeat(Math.max(0, level));
  }

  /** A dotted key path, quoting the parts that are not bare keys. */
  static String path(List<String> parts) {
    StringBuilder sb = new StringBuilder();
    for (String p : parts) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      sb.append(key(p));
    }
    return sb.toString();
  }

  static String key(String k) {
    return BARE_KEY.matcher(k).matches() ? k : string(k);
  }

  /** An inline value: string, number, boolean, array or inline table. */
  static String value(JsonNode v) {
    if (v.isTextual()) {
      return string(v.textValue());
    }
    if (v.isBoolean() || v.isNumber()) {
      return v.asText();
    }
    if (v.isArray()) {
      List<String> items = new ArrayList<>();
      v.forEach(e -> items.add(value(e)));
      return "[" + String.join(", ", items) + "]";
    }
    if (v.isObject()) {
      List<String> items = new ArrayList<>();
      v.fields().forEachRemaining(e -> items.add(key(e.getKey()) + " = " + value(e.getValue())));
      return "{" + String.join(", ", items) + "}";
    }
    throw new IllegalArgumentException("no TOML form for " + v.getNodeType());
  }

  static String string(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\u%04X", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}

package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Edits a TOML file as text, touching only the lines of the keys and tables it changes, so that
 * everything else (other runtimes, plugins, comments, blank lines, key order) stays byte for byte.
 * It understands what containerd and CRI-O configs contain: {@code [table]} and {@code [[array]]}
 * headers with quoted key parts, {@code key = value} lines whose value may span lines (arrays,
 * multi-line strings), comments. Layouts it does not edit in place (a table given by dotted keys or
 * an inline table) are caught by the caller, which re-reads the result and compares it with the
 * intended document.
 */
final class TomlText {
  private final List<String> lines;

  /** One header or key/value: its lines, its table and (for a key) its dotted key. */
  record Entry(int start, int end, List<String> table, List<String> key, boolean header) {}

  TomlText(String text) {
    lines = new ArrayList<>(List.of(text.split("\n", -1)));
    // split keeps a last empty element when the text ends with a newline: that is the terminator.
  }

  @Override
  public String toString() {
    return String.join("\n", lines);
  }

  /** Sets a key with an inline value, or a table (object value) with all its sub-tables. */
  void set(List<String> path, JsonNode value) {
    if (value.isObject()) {
      removeTable(path);
      appendTable(path, (ObjectNode) value);
      return;
    }
    List<String> table = path.subList(0, path.size() - 1);
    List<String> key = path.subList(path.size() - 1, path.size());
    List<Entry> entries = scan();
    for (Entry e : entries) {
      if (!e.header() && e.table().equals(table) && e.key().equals(key)) {
        String indent = indentOf(lines.get(e.start()));
        replace(
            e.start(),
            e.end(),
            List.of(indent + TomlWriter.path(key) + " = " + TomlWriter.value(value)));
        return;
      }
    }
    int insertAt = -1;
    String indent = null;
    if (table.isEmpty()) {
      insertAt = 0;
      for (Entry e : entries) {
        if (e.header()) {
          break;
        }
        insertAt = e.end();
        indent = indentOf(lines.get(e.start()));
      }
      indent = indent == null ? "" : indent;
    } else {
      for (int i = 0; i < entries.size(); i++) {
        Entry h = entries.get(i);
        if (h.header() && h.key() != null && h.table().equals(table)) {
          insertAt = h.end();
          indent = indentOf(lines.get(h.start())) + "  ";
          for (int j = i + 1; j < entries.size() && !entries.get(j).header(); j++) {
            insertAt = entries.get(j).end();
            indent = indentOf(lines.get(entries.get(j).start()));
          }
          break;
        }
      }
    }
    String line = indent + TomlWriter.path(key) + " = " + TomlWriter.value(value);
    if (insertAt < 0) {
      ObjectNode t = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
      t.set(key.get(0), value);
      appendTable(table, t);
      return;
    }
    lines.add(insertAt, line);
  }

  /** Removes a key or a table (with its sub-tables); nothing when it is not there. */
  void remove(List<String> path) {
    removeTable(path);
    List<String> table = path.subList(0, path.size() - 1);
    List<String> key = path.subList(path.size() - 1, path.size());
    for (Entry e : scan()) {
      if (!e.header() && e.table().equals(table) && e.key().equals(key)) {
        replace(e.start(), e.end(), List.of());
        return;
      }
    }
  }

  /** Removes every section whose header is {@code path} or below it. */
  void removeTable(List<String> path) {
    while (true) {
      List<Entry> entries = scan();
      int from = -1;
      int to = -1;
      for (int i = 0; i < entries.size(); i++) {
        Entry h = entries.get(i);
        if (h.header() && startsWith(h.table(), path)) {
          from = h.start();
          to = lines.size() - (lines.get(lines.size() - 1).isEmpty() ? 1 : 0);
          for (int j = i + 1; j < entries.size(); j++) {
            if (entries.get(j).header()) {
              to = entries.get(j).start();
              break;
            }
          }
          break;
        }
      }
      if (from < 0) {
        return;
      }
      int end = lines.size() - (lines.get(lines.size() - 1).isEmpty() ? 1 : 0);
      if (to == end) {
        // The last section: the blank lines that set it apart go with it.
        while (from > 0 && lines.get(from - 1).isBlank()) {
          from--;
        }
      }
      replace(from, to, List.of());
    }
  }

  /** Appends the table (and its sub-tables) at the end, after a blank line. */
  void appendTable(List<String> path, ObjectNode table) {
    String text = TomlWriter.table(path, table);
    int last = lines.size() - 1;
    boolean terminated = lines.get(last).isEmpty();
    if (!terminated) {
      lines.add("");
      last++;
    }
    List<String> add = new ArrayList<>();
    boolean emptyFile = lines.size() == 1;
    if (!emptyFile) {
      add.add("");
    }
    add.addAll(List.of(text.split("\n", -1)));
    // add ends with "" (text ends with a newline): it becomes the new terminator.
    lines.remove(last);
    lines.addAll(add);
  }

  private void replace(int from, int to, List<String> with) {
    for (int i = from; i < to; i++) {
      lines.remove(from);
    }
    lines.addAll(from, with);
  }

  private static boolean startsWith(List<String> p, List<String> prefix) {
    return p.size() >= prefix.size() && p.subList(0, prefix.size()).equals(prefix);
  }

  private static String indentOf(String line) {
    int i = 0;
    while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
      i++;
    }
    return line.substring(0, i);
  }

  /** Headers and key/values with their line ranges. */
  List<Entry> scan() {
    List<Entry> out = new ArrayList<>();
    List<String> table = List.of();
    ValueState state = new ValueState();
    Entry open = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (open != null) {
        state.scan(line, 0);
        if (state.done()) {
          out.add(new Entry(open.start(), i + 1, open.table(), open.key(), false));
          open = null;
        }
        continue;
      }
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      if (t.startsWith("[")) {
        boolean array = t.startsWith("[[");
        KeyParser p = new KeyParser(t, array ? 2 : 1);
        List<String> path = p.path(']');
        table = path;
        // Array-of-tables sections are never edited here: mark them with a null key.
        out.add(new Entry(i, i + 1, path, array ? null : List.of(), true));
        continue;
      }
      int lead = line.length() - line.stripLeading().length();
      KeyParser p = new KeyParser(line, lead);
      List<String> key = p.path('=');
      state = new ValueState();
      state.scan(line, p.pos + 1);
      if (state.done()) {
        out.add(new Entry(i, i + 1, table, key, false));
      } else {
        open = new Entry(i, i + 1, table, key, false);
      }
    }
    if (open != null) {
      throw new IllegalArgumentException("unterminated value of key " + open.key());
    }
    return out;
  }

  /** Reads a dotted key ({@code a."b.c".'d'}) up to a terminator character. */
  private static final class KeyParser {
    private final String s;
    private int pos;

    KeyParser(String s, int pos) {
      this.s = s;
      this.pos = pos;
    }

    List<String> path(char terminator) {
      List<String> parts = new ArrayList<>();
      while (true) {
        skipSpace();
        if (pos >= s.length()) {
          throw new IllegalArgumentException("no '" + terminator + "' in line: " + s);
        }
        char c = s.charAt(pos);
        if (c == '"') {
          parts.add(basic());
        } else if (c == '\'') {
          int end = s.indexOf('\'', pos + 1);
          if (end < 0) {
            throw new IllegalArgumentException("unterminated key in line: " + s);
          }
          parts.add(s.substring(pos + 1, end));
          pos = end + 1;
        } else {
          int start = pos;
          while (pos < s.length()
              && (Character.isLetterOrDigit(s.charAt(pos))
                  || s.charAt(pos) == '_'
                  || s.charAt(pos) == '-')) {
            pos++;
          }
          if (start == pos) {
            throw new IllegalArgumentException("bad key in line: " + s);
          }
          parts.add(s.substring(start, pos));
        }
        skipSpace();
        if (pos < s.length() && s.charAt(pos) == '.') {
          pos++;
          continue;
        }
        if (pos < s.length() && s.charAt(pos) == terminator) {
          return parts;
        }
        throw new IllegalArgumentException("bad key in line: " + s);
      }
    }

    private String basic() {
      StringBuilder sb = new StringBuilder();
      pos++;
      while (pos < s.length() && s.charAt(pos) != '"') {
        char c = s.charAt(pos);
        if (c == '\\' && pos + 1 < s.length()) {
          char n = s.charAt(++pos);
          switch (n) {
            case 'n' -> sb.append('\n');
            case 't' -> sb.append('\t');
            case 'r' -> sb.append('\r');
            case 'u' -> {
              sb.append((char) Integer.parseInt(s.substring(pos + 1, pos + 5), 16));
              pos += 4;
            }
            default -> sb.append(n);
          }
        } else {
          sb.append(c);
        }
        pos++;
      }
      pos++;
      return sb.toString();
    }

    private void skipSpace() {
      while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
        pos++;
      }
    }
  }

  /** Where a value's text stands after some lines: inside a string, an array or a table. */
  private static final class ValueState {
    private int depth;
    private String multi; // """ or ''' while inside a multi-line string

    boolean done() {
      return depth == 0 && multi == null;
    }

    void scan(String line, int from) {
      int i = from;
      while (i < line.length()) {
        if (multi != null) {
          int end = line.indexOf(multi, i);
          if (end < 0) {
            return;
          }
          i = end + 3;
          multi = null;
          continue;
        }
        char c = line.charAt(i);
        if (line.startsWith("\"\"\"", i) || line.startsWith("'''", i)) {
          multi = line.substring(i, i + 3);
          i += 3;
          continue;
        }
        switch (c) {
          case '#' -> {
            return;
          }
          case '"' -> {
            i++;
            while (i < line.length() && line.charAt(i) != '"') {
              i += line.charAt(i) == '\\' ? 2 : 1;
            }
          }
          case '\'' -> {
            int end = line.indexOf('\'', i + 1);
            i = end < 0 ? line.length() : end;
          }
          case '[', '{' -> depth++;
          case ']', '}' -> depth--;
          default -> {}
        }
        i++;
      }
    }
  }
}

package io.gpuoperator.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Field paths as messages write them: {@code spec.driver.image}, {@code nodes[2].name}. Keys may
 * hold dots themselves ({@code mig.1g.10gb}); such paths are for reading, and lookups go from the
 * longest known prefix.
 */
final class Paths {
  private Paths() {}

  /** Appends a key or a list index. */
  static String child(String parent, Object segment) {
    if (segment instanceof Integer i) {
      return parent + "[" + i + "]";
    }
    return parent.isEmpty() ? segment.toString() : parent + "." + segment;
  }

  /** Joins segments: strings are keys, integers indices. */
  static String join(List<?> segments) {
    String p = "";
    for (Object s : segments) {
      p = child(p, s);
    }
    return p;
  }

  /** The path one level up; empty at the top. */
  static String parent(String path) {
    if (path.endsWith("]")) {
      return path.substring(0, path.lastIndexOf('['));
    }
    int dot = path.lastIndexOf('.');
    int bracket = path.lastIndexOf(']');
    return dot > bracket
        ? path.substring(0, dot)
        : bracket >= 0 ? path.substring(0, bracket + 1) : "";
  }

  /** Splits a simple path (keys without dots) into segments. */
  static List<Object> parse(String path) {
    List<Object> out = new ArrayList<>();
    if (path == null || path.isEmpty()) {
      return out;
    }
    for (String part : path.split("\\.")) {
      int b = part.indexOf('[');
      String key = b < 0 ? part : part.substring(0, b);
      if (!key.isEmpty()) {
        out.add(key);
      }
      while (b >= 0) {
        int e = part.indexOf(']', b);
        out.add(Integer.parseInt(part.substring(b + 1, e)));
        b = part.indexOf('[', e);
      }
    }
    return out;
  }
}

package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.util.List;

/** Reading, querying and changing TOML documents as trees (Jackson's TOML model). */
final class TomlTree {
  static final ObjectMapper TOML = new TomlMapper();

  /** One change to a document: set {@code path} to {@code value}, or remove it when null. */
  record Change(List<String> path, JsonNode value) {}

  private TomlTree() {}

  /** Parses TOML; blank text is an empty document. Throws with the parser's line and column. */
  static ObjectNode parse(String text) throws IOException {
    if (text.isBlank()) {
      return TOML.createObjectNode();
    }
    JsonNode n = TOML.readTree(text);
    return n == null ? TOML.createObjectNode() : (ObjectNode) n;
  }

  /** The node at a path, or null. */
  static JsonNode at(JsonNode tree, List<String> path) {
    JsonNode n = tree;
    for (String p : path) {
      if (n == null || !n.isObject()) {
        return null;
      }
      n = n.get(p);
    }
    return n;
  }

  /** The object at a path, created (with its parents) when missing. */
  static ObjectNode object(ObjectNode tree, List<String> path) {
    ObjectNode n = tree;
    for (String p : path) {
      JsonNode c = n.get(p);
      if (c == null || !c.isObject()) {
        c = n.putObject(p);
      }
      n = (ObjectNode) c;
    }
    return n;
  }

  /** A copy of {@code tree} with the changes applied. */
  static ObjectNode apply(ObjectNode tree, List<Change> changes) {
    ObjectNode out = tree.deepCopy();
    for (Change c : changes) {
      List<String> parent = c.path().subList(0, c.path().size() - 1);
      String key = c.path().get(c.path().size() - 1);
      if (c.value() == null) {
        JsonNode p = at(out, parent);
        if (p != null && p.isObject()) {
          ((ObjectNode) p).remove(key);
        }
      } else {
        object(out, parent).set(key, c.value().deepCopy());
      }
    }
    return out;
  }

  /** Applies the changes to the text, touching only their lines. */
  static String applyText(String text, List<Change> changes) {
    TomlText t = new TomlText(text);
    for (Change c : changes) {
      if (c.value() == null) {
        t.remove(c.path());
      } else {
        t.set(c.path(), c.value());
      }
    }
    return t.toString();
  }
}

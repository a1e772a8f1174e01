package io.gpuoperator.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One file the project read, as a tree of values plus where each field stands in the file, so any
 * later check can say {@code config.yaml:3:7 flags.migStrategy: …}. Made by {@link Documents};
 * bound to a type with {@link #bind}. Paths are written {@code nodes[0].mig.1g.10gb}: keys joined
 * with dots, list indices in brackets.
 */
public final class Document {
  /** A position in a file, 1-based. */
  public record Location(int line, int column) {
    @Override
    public String toString() {
      return line + ":" + column;
    }
  }

  private final String source;
  private final JsonNode root;
  private final Map<String, Location> locations;

  Document(String source, JsonNode root, Map<String, Location> locations) {
    this.source = source;
    this.root = root;
    this.locations = Map.copyOf(locations);
  }

  /** A document without a file behind it (values built in code); messages name {@code source}. */
  public static Document of(String source, JsonNode root) {
    return new Document(source, root, Map.of());
  }

  /** What messages call the file: its path as the user gave it. */
  public String source() {
    return source;
  }

  /** The values; a null node for an empty file. */
  public JsonNode root() {
    return root;
  }

  /** True when the file holds nothing (empty, comments only, or {@code null}). */
  public boolean isEmpty() {
    return root == null || root.isNull() || root.isMissingNode();
  }

  /** The value at a path, or a missing node. */
  public JsonNode at(String path) {
    JsonNode node = root;
    for (Object segment : Paths.parse(path)) {
      if (node == null) {
        return MissingNode.getInstance();
      }
      node = segment instanceof Integer i ? node.get(i) : node.get((String) segment);
    }
    return node == null ? MissingNode.getInstance() : node;
  }

  /** Where the field at a path (or, failing that, its nearest parent) stands in the file. */
  public Optional<Location> location(String path) {
    String p = path;
    while (true) {
      Location l = locations.get(p);
      if (l != null) {
        return Optional.of(l);
      }
      if (p.isEmpty()) {
        // A field the file lacks altogether, or the document as a whole: its first line.
        return isEmpty() ? Optional.empty() : Optional.of(new Location(1, 1));
      }
      p = Paths.parent(p);
    }
  }

  /** {@code file:line:column path}, or less where the path or position is unknown. */
  public String where(String path) {
    StringBuilder sb = new StringBuilder(source);
    location(path == null ? "" : path).ifPresent(l -> sb.append(':').append(l));
    if (path != null && !path.isEmpty()) {
      sb.append(' ').append(path);
    }
    return sb.toString();
  }

  /** The exception for a bad value at a path: {@code file:line:column path: problem}. */
  public ConfigException error(String path, String problem) {
    return new ConfigException(where(path) + ": " + problem);
  }

  /**
   * The values as plain Java collections (a mutable map for a mapping): strings, numbers, booleans,
   * nulls, lists and maps, for checks that walk a document, such as a CRD schema.
   */
  public Object toPlain() {
    return Binding.STRICT.convertValue(root, Object.class);
  }

  /**
   * The document as a {@code type}: unknown fields, wrong types, fractions where whole numbers are
   * expected and values a record's constructor refuses are {@link ConfigException}s naming the
   * field, its line and what was expected.
   */
  public <T> T bind(Class<T> type) {
    return bind(type, Map.of());
  }

  /** As {@link #bind(Class)}, with attributes handed to custom deserializers. */
  public <T> T bind(Class<T> type, Map<String, Object> attributes) {
    ObjectReader reader = Binding.STRICT.readerFor(type);
    for (Map.Entry<String, Object> e : attributes.entrySet()) {
      reader = reader.withAttribute(e.getKey(), e.getValue());
    }
    return Binding.bind(this, reader);
  }

  /**
   * As {@link #bind(Class)}, but unknown fields are skipped and reported in {@code warnings} (for
   * formats whose original ignores them, so files written for newer releases still load).
   */
  public <T> T bindLenient(Class<T> type, List<String> warnings) {
    return Binding.bindLenient(this, type, warnings);
  }
}

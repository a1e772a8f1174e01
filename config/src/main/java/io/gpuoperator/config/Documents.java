package io.gpuoperator.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The one way this project reads a file a user gives it (YAML, JSON or TOML): within size and depth
 * limits, one document only, duplicate keys rejected naming the key, aliases expanded within a
 * budget (a recursive alias is an error, not a stack overflow), and every failure a {@link
 * ConfigException} of the form {@code file:line:column: problem}. The result is a {@link Document}
 * that remembers the line of every field for the checks that come after parsing.
 *
 * <p>Plain YAML scalars are typed as {@code kubectl} reads them (YAML 1.1 booleans such as {@code
 * yes}/{@code off}, decimal, hex and octal integers, floats, {@code null}/{@code ~}); numbers with
 * leading zeros, sexagesimal numbers and dates stay strings.
 */
public final class Documents {
  /**
   * How much a file may hold.
   *
   * @param maxBytes size of the file
   * @param maxDepth nesting of mappings and lists
   * @param maxAliasedValues values that aliases may add in all
   */
  public record Limits(long maxBytes, int maxDepth, int maxAliasedValues) {
    /** Enough for any configuration file or ClusterPolicy: 1 MiB, 64 levels, 10,000 values. */
    public static final Limits DEFAULT = new Limits(1 << 20, 64, 10_000);

    /** The same limits with another size. */
    public Limits withMaxBytes(long bytes) {
      return new Limits(bytes, maxDepth, maxAliasedValues);
    }
  }

  /** The file formats read. */
  public enum Format {
    /** YAML, or JSON (a YAML file whose text starts with a brace or bracket is tried as JSON). */
    YAML,
    /** TOML (containerd's config). */
    TOML
  }

  private static final Resolver RESOLVER = new Resolver();
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final Pattern INT = Pattern.compile("[-+]?(0|[1-9][0-9]*)");
  private static final Pattern HEX = Pattern.compile("0x[0-9a-fA-F]+");
  private static final Pattern OCT = Pattern.compile("0o[0-7]+");
  private static final Pattern FLOAT =
      Pattern.compile("[-+]?(\\.[0-9]+|(0|[1-9][0-9]*)(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  private static final Set<String> TRUE =
      Set.of("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON");
  private static final Set<String> FALSE =
      Set.of("false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF");
  private static final Set<String> NULL = Set.of("", "~", "null", "Null", "NULL");

  private Documents() {}

  /** Reads a YAML (or JSON) file within the default limits. */
  public static Document read(Path file) {
    return read(file, Format.YAML, Limits.DEFAULT);
  }

  /** Reads a file; {@link ConfigException} when it cannot be read or parsed. */
  public static Document read(Path file, Format format, Limits limits) {
    String source = file.toString();
    byte[] bytes;
    try {
      if (Files.isDirectory(file)) {
        throw new ConfigException(source + ": is a directory, expected a file");
      }
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limits.maxBytes() + 1));
      }
    } catch (IOException e) {
      throw new ConfigException(source + ": cannot read: " + IoErrors.describe(e), e);
    }
    return parse(bytes, source, format, limits);
  }

  /** Reads a document from a stream (e.g. a resource in the jar); {@code source} names it. */
  public static Document read(InputStream in, String source, Limits limits) {
    try {
      return parse(
          in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limits.maxBytes() + 1)),
          source,
          Format.YAML,
          limits);
    } catch (IOException e) {
      throw new ConfigException(source + ": cannot read: " + IoErrors.describe(e), e);
    }
  }

  /** Parses YAML (or JSON) text within the default limits; {@code source} names it. */
  public static Document parse(String text, String source) {
    return parse(text, source, Format.YAML, Limits.DEFAULT);
  }

  /** Parses text; {@code source} names it in messages. */
  public static Document parse(String text, String source, Format format, Limits limits) {
    if (text.length() > limits.maxBytes()) {
      throw tooLarge(source, limits);
    }
    return switch (format) {
      case YAML -> parseYamlOrJson(text, source, limits);
      case TOML -> parseToml(text, source, limits);
    };
  }

  private static Document parse(byte[] bytes, String source, Format format, Limits limits) {
    if (bytes.length > limits.maxBytes()) {
      throw tooLarge(source, limits);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw new ConfigException(source + ": not UTF-8 text (a binary file?)");
    }
    return parse(text, source, format, limits);
  }

  private static ConfigException tooLarge(String source, Limits limits) {
    return new ConfigException(
        source
            + ": larger than "
            + (limits.maxBytes() >= 1 << 20
                ? (limits.maxBytes() >> 20) + " MiB"
                : limits.maxBytes() + " bytes")
            + "; is this the right file?");
  }

  /** Why a mapping is refused when a key comes twice, in YAML and in JSON alike. */
  private static String duplicateKey(String key, int firstLine) {
    return "duplicate key "
        + Values.quote(key)
        + " (first at line "
        + firstLine
        + "); each key may appear once";
  }

  // ---- YAML ---------------------------------------------------------------------------------

  private static Document parseYamlOrJson(String text, String source, Limits limits) {
    String start = text.stripLeading();
    if (start.startsWith("{") || start.startsWith("[")) {
      try {
        return new JsonTree(source, limits).parse(text);
      } catch (ConfigException jsonError) {
        try {
          return new YamlTree(source, limits).parse(text);
        } catch (ConfigException yamlError) {
          throw jsonError; // it looked like JSON: JSON's complaint is the useful one
        }
      }
    }
    return new YamlTree(source, limits).parse(text);
  }

  /** Builds the tree from SnakeYAML's composed nodes, keeping each field's position. */
  private static final class YamlTree {
    private final String source;
    private final Limits limits;
    private final Map<String, Document.Location> locations = new HashMap<>();
    private final Map<Node, Boolean> seen = new IdentityHashMap<>();
    private final Map<Node, Boolean> active = new IdentityHashMap<>();
    private int converted;

    YamlTree(String source, Limits limits) {
      this.source = source;
      this.limits = limits;
    }

    Document parse(String text) {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(true); // checked below, naming the key and both lines
      options.setMaxAliasesForCollections(Integer.MAX_VALUE); // budgeted below, with a position
      options.setAllowRecursiveKeys(true); // reported below as a recursive alias
      // The composer recurses; its own limit only guards the stack, ours (with a line) comes first.
      options.setNestingDepthLimit(limits.maxDepth() * 4 + 8);
      options.setCodePointLimit((int) Math.min(Integer.MAX_VALUE, limits.maxBytes() + 1));
      options.setMergeOnCompose(true);
      options.setProcessComments(false);
      ParserImpl parser = new ParserImpl(new StreamReader(text), options);
      Composer composer = new Composer(parser, new Resolver(), options);
      Node first;
      try {
        first = composer.checkNode() ? composer.getNode() : null;
        while (composer.checkNode()) {
          Node next = composer.getNode();
          if (!isEmptyDocument(next)) {
            throw new ConfigException(
                at(next.getStartMark())
                    + ": a second document starts here; expected one document (remove the '---'"
                    + " line and what follows, or split the file)");
          }
        }
      } catch (MarkedYAMLException e) {
        Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
        throw new ConfigException(at(m) + ": " + yamlProblem(problem), e);
      } catch (YAMLException e) {
        Mark m = null;
        try {
          m = parser.peekEvent().getStartMark();
        } catch (RuntimeException ignored) {
          // position unknown
        }
        throw new ConfigException(at(m) + ": " + yamlProblem(e.getMessage()), e);
      }
      JsonNode root = first == null || isEmptyDocument(first) ? NullNode.getInstance() : null;
      if (root == null) {
        root = convert(first, "", 0);
      }
      return new Document(source, root, locations);
    }

    private static boolean isEmptyDocument(Node n) {
      return n instanceof ScalarNode s
              && s.getScalarStyle() == org.yaml.snakeyaml.DumperOptions.ScalarStyle.PLAIN
              && NULL.contains(s.getValue())
          || (n instanceof MappingNode m && m.getTag() == Tag.COMMENT);
    }

    private JsonNode convert(Node node, String path, int depth) {
      if (depth > limits.maxDepth()) {
        throw refused(
            node.getStartMark(), path, "nested deeper than " + limits.maxDepth() + " levels");
      }
      if (active.containsKey(node)) {
        throw refused(
            node.getStartMark(),
            path,
            "recursive alias"
                + (node.getAnchor() == null ? "" : " *" + node.getAnchor())
                + " (a value that contains itself)");
      }
      seen.put(node, Boolean.TRUE);
      // Every value converted more than once came through an alias (or a merge key).
      if (++converted - seen.size() > limits.maxAliasedValues()) {
        throw refused(
            node.getStartMark(),
            path,
            "aliases expand to more than " + limits.maxAliasedValues() + " values");
      }
      if (node instanceof ScalarNode s) {
        return scalar(s, path);
      }
      active.put(node, Boolean.TRUE);
      try {
        if (node instanceof SequenceNode seq) {
          ArrayNode array = NODES.arrayNode();
          int i = 0;
          for (Node item : seq.getValue()) {
            String p = Paths.child(path, i++);
            locations.putIfAbsent(p, loc(item.getStartMark()));
            array.add(convert(item, p, depth + 1));
          }
          return array;
        }
        MappingNode map = (MappingNode) node;
        ObjectNode object = NODES.objectNode();
        Map<String, Mark> keys = new HashMap<>();
        for (NodeTuple t : map.getValue()) {
          if (!(t.getKeyNode() instanceof ScalarNode k)) {
            throw refused(
                t.getKeyNode().getStartMark(),
                path,
                "a key must be a plain value, not a list or mapping");
          }
          String key = k.getValue();
          String p = Paths.child(path, key);
          Mark previous = keys.putIfAbsent(key, k.getStartMark());
          if (previous != null) {
            throw refused(k.getStartMark(), p, duplicateKey(key, previous.getLine() + 1));
          }
          locations.put(p, loc(k.getStartMark()));
          object.set(key, convert(t.getValueNode(), p, depth + 1));
        }
        return object;
      } finally {
        active.remove(node);
      }
    }

    private JsonNode scalar(ScalarNode s, String path) {
      String v = s.getValue();
      Tag tag = s.getTag();
      boolean plain = s.getScalarStyle() == org.yaml.snakeyaml.DumperOptions.ScalarStyle.PLAIN;
      // SnakeYAML does not say whether a tag was written; a tag other than the one it would have
      // resolved (str for quoted text) was.
      boolean explicit = !tag.equals(RESOLVER.resolve(NodeId.scalar, v, plain));
      if (explicit) {
        if (tag.equals(Tag.STR)) {
          return NODES.textNode(v);
        }
        if (!(tag.equals(Tag.INT)
            || tag.equals(Tag.FLOAT)
            || tag.equals(Tag.BOOL)
            || tag.equals(Tag.NULL))) {
          throw refused(
              s.getStartMark(),
              path,
              "unsupported tag " + Values.quote(tag.getValue()) + "; write the plain value");
        }
      } else if (!plain) {
        return NODES.textNode(v);
      }
      if (NULL.contains(v)) {
        return NullNode.getInstance();
      }
      if (TRUE.contains(v)) {
        return NODES.booleanNode(true);
      }
      if (FALSE.contains(v)) {
        return NODES.booleanNode(false);
      }
      if (INT.matcher(v).matches()) {
        return integer(new BigInteger(v.startsWith("+") ? v.substring(1) : v));
      }
      if (HEX.matcher(v).matches()) {
        return integer(new BigInteger(v.substring(2), 16));
      }
      if (OCT.matcher(v).matches()) {
        return integer(new BigInteger(v.substring(2), 8));
      }
      if (FLOAT.matcher(v).matches() && (v.contains(".") || v.contains("e") || v.contains("E"))) {
        return NODES.numberNode(new BigDecimal(v.startsWith("+") ? v.substring(1) : v));
      }
      if (explicit && (tag.equals(Tag.INT) || tag.equals(Tag.FLOAT))) {
        throw refused(s.getStartMark(), path, Values.quote(v) + " is not a number");
      }
      return NODES.textNode(v);
    }

    private static JsonNode integer(BigInteger i) {
      return i.bitLength() < 64 ? NODES.numberNode(i.longValue()) : NODES.numberNode(i);
    }

    private String at(Mark m) {
      return m == null ? source : source + ":" + loc(m);
    }

    /** Input refused at a node: where it stands, the value's path (none at the top) and why. */
    private ConfigException refused(Mark m, String path, String why) {
      return new ConfigException(at(m) + (path.isEmpty() ? "" : " " + path) + ": " + why);
    }

    private static Document.Location loc(Mark m) {
      return new Document.Location(m.getLine() + 1, m.getColumn() + 1);
    }

    private String yamlProblem(String problem) {
      if (problem == null || problem.isBlank()) {
        return "not valid YAML";
      }
      String p = problem.strip().replace("(TAB)", "");
      if (p.startsWith("Nesting Depth exceeded")) {
        return "nested deeper than " + limits.maxDepth() + " levels";
      }
      if (p.startsWith("The incoming YAML document exceeds the limit")) {
        return "larger than allowed";
      }
      // SnakeYAML quotes the offending character Java-style; keep the words, escape the rest.
      return "not valid YAML: " + p.replaceAll("\\s+", " ");
    }
  }

  // ---- JSON ---------------------------------------------------------------------------------

  /** Builds the tree from Jackson's JSON tokens, keeping each field's position. */
  private static final class JsonTree {
    private final String source;
    private final Limits limits;
    private final Map<String, Document.Location> locations = new HashMap<>();

    JsonTree(String source, Limits limits) {
      this.source = source;
      this.limits = limits;
    }

    Document parse(String text) {
      JsonFactory factory =
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxNestingDepth(limits.maxDepth()).build())
              .build();
      try (JsonParser p = factory.createParser(text)) {
        JsonToken t = p.nextToken();
        if (t == null) {
          return new Document(source, NullNode.getInstance(), locations);
        }
        JsonNode root;
        try {
          root = value(p, "");
        } catch (StreamConstraintsException e) {
          throw new ConfigException(
              at(p.currentLocation()) + ": nested deeper than " + limits.maxDepth() + " levels", e);
        }
        if (p.nextToken() != null) {
          throw new ConfigException(
              at(p.currentTokenLocation()) + ": unexpected text after the JSON document");
        }
        return new Document(source, root, locations);
      } catch (StreamConstraintsException e) {
        throw new ConfigException(
            at(e.getLocation()) + ": nested deeper than " + limits.maxDepth() + " levels", e);
      } catch (JsonProcessingException e) {
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        throw new ConfigException(
            at(e.getLocation()) + ": not valid JSON: " + m.lines().findFirst().orElse(m), e);
      } catch (IOException e) {
        throw new ConfigException(source + ": cannot read: " + IoErrors.describe(e), e);
      }
    }

    private JsonNode value(JsonParser p, String path) throws IOException {
      switch (p.currentToken()) {
        case START_OBJECT -> {
          ObjectNode o = NODES.objectNode();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            String child = Paths.child(path, key);
            JsonLocation at = p.currentTokenLocation();
            if (o.has(key)) {
              throw new ConfigException(
                  at(at) + " " + child + ": " + duplicateKey(key, locations.get(child).line()));
            }
            locations.put(child, new Document.Location(at.getLineNr(), at.getColumnNr()));
            p.nextToken();
            o.set(key, value(p, child));
          }
          return o;
        }
        case START_ARRAY -> {
          ArrayNode a = NODES.arrayNode();
          int i = 0;
          while (p.nextToken() != JsonToken.END_ARRAY) {
            String child = Paths.child(path, i++);
            JsonLocation at = p.currentTokenLocation();
            locations.put(child, new Document.Location(at.getLineNr(), at.getColumnNr()));
            a.add(value(p, child));
          }
          return a;
        }
        case VALUE_STRING -> {
          return NODES.textNode(p.getText());
        }
        case VALUE_NUMBER_INT -> {
          return Documents.YamlTree.integer(p.getBigIntegerValue());
        }
        case VALUE_NUMBER_FLOAT -> {
          return NODES.numberNode(p.getDecimalValue());
        }
        case VALUE_TRUE -> {
          return NODES.booleanNode(true);
        }
        case VALUE_FALSE -> {
          return NODES.booleanNode(false);
        }
        default -> {
          return NullNode.getInstance();
        }
      }
    }

    private String at(JsonLocation l) {
      return l == null || l.getLineNr() < 1
          ? source
          : source + ":" + l.getLineNr() + ":" + l.getColumnNr();
    }
  }

  // ---- TOML ---------------------------------------------------------------------------------

  private static Document parseToml(String text, String source, Limits limits) {
    TomlMapper toml =
        new TomlMapper(
            TomlFactory.builder()
                .streamReadConstraints(
                    StreamReadConstraints.builder().maxNestingDepth(limits.maxDepth()).build())
                .build());
    try {
      JsonNode root = toml.readTree(text);
      return new Document(source, root == null ? NullNode.getInstance() : root, Map.of());
    } catch (JsonProcessingException e) {
      JsonLocation l = e.getLocation();
      String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      throw new ConfigException(
          (l == null || l.getLineNr() < 1 ? source : source + ":" + l.getLineNr())
              + ": not valid TOML: "
              + m.lines().findFirst().orElse(m),
          e);
    }
  }
}

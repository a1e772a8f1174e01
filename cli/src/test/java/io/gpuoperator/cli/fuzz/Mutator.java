package io.gpuoperator.cli.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gpuoperator.config.Documents;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Mutates a valid YAML document the way a hostile but fair user would: a value of the wrong kind,
 * out of range, huge or with terminal escapes; a key removed, renamed or repeated; a second
 * document, a tab, a truncated file, an alias bomb, deep nesting. Deterministic for a seed.
 */
final class Mutator {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Values that break parsers, bounds and terminals. */
  static final List<String> EVIL =
      List.of(
          "",
          "null",
          "-1",
          "0",
          "2.5",
          "2000000000",
          "99999999999999999999",
          "1e400",
          "true",
          "yes",
          "\u001b[31mred\u001b[0m",
          "../../etc/passwd",
          "a b",
          "UPPER NS!",
          "\uD83D\uDE00",
          "\t",
          "'",
          "0x10",
          ".inf",
          "1:0",
          "-.inf",
          "x/y",
          "nvcr.io/nvidia/driver:550",
          "7g.80gb",
          "sometimes",
          "soon",
          "\u0000",
          "k".repeat(300));

  private final Random random;

  Mutator(long seed) {
    this.random = new Random(seed);
  }

  int nextInt(int bound) {
    return random.nextInt(bound);
  }

  <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  /** One mutation of a valid document's text. */
  String mutate(String valid) {
    int op = random.nextInt(20);
    if (op < 12) {
      JsonNode root = Documents.parse(valid, "seed").root().deepCopy();
      List<String[]> paths = new ArrayList<>();
      collect(root, "", paths);
      if (!paths.isEmpty()) {
        mutateTree(root, paths.get(random.nextInt(paths.size())), op);
        return dump(root);
      }
    }
    List<String> lines = new ArrayList<>(List.of(valid.split("\n", -1)));
    int line = random.nextInt(lines.size());
    return switch (op) {
      case 12 -> { // a repeated line: often a duplicate key
        lines.add(line, lines.get(line));
        yield String.join("\n", lines);
      }
      case 13 -> { // a line gone
        lines.remove(line);
        yield String.join("\n", lines);
      }
      case 14 -> valid + "\n---\n" + valid; // two documents
      case 15 -> valid.substring(0, random.nextInt(Math.max(1, valid.length()))); // truncated
      case 16 -> { // a tab where indentation goes
        lines.set(line, "\t" + lines.get(line));
        yield String.join("\n", lines);
      }
      case 17 ->
          pick(
              List.of(
                  "a: &x\n  b: *x\n",
                  "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                      + "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
                  "a: " + "[".repeat(1500) + "]".repeat(1500) + "\n",
                  "a: " + "{b: ".repeat(200) + "1" + "}".repeat(200) + "\n",
                  "- just\n- a list\n",
                  "just a string\n",
                  "\u0000\u0001\u0002 binary \u00ff\n"));
      case 18 -> { // a huge value
        lines.add(line, "huge: \"" + "x".repeat(100_000 + random.nextInt(1_000_000)) + "\"");
        yield String.join("\n", lines);
      }
      default -> { // a character replaced
        if (valid.isEmpty()) {
          yield ":";
        }
        int at = random.nextInt(valid.length());
        String c = pick(List.of(":", "\"", "'", "{", "[", "&", "*", "!", "\u001b", "#", "-", "%"));
        yield valid.substring(0, at) + c + valid.substring(at + 1);
      }
    };
  }

  private void mutateTree(JsonNode root, String[] target, int op) {
    JsonNode parent = at(root, target[0]);
    String key = target[1];
    JsonNode value = evilValue();
    if (parent instanceof ObjectNode o) {
      switch (op % 6) {
        case 0, 1, 2 -> o.set(key, value);
        case 3 -> o.remove(key);
        case 4 -> o.set(key + pick(List.of("s", "X", "_", "Enabled")), value); // a typo's twin
        default ->
            o.set(
                key,
                random.nextBoolean()
                    ? NODES.arrayNode().add(value)
                    : NODES.objectNode().set("x", value));
      }
    } else if (parent instanceof ArrayNode a) {
      int i = Integer.parseInt(key);
      switch (op % 4) {
        case 0, 1 -> a.set(i, value);
        case 2 -> a.remove(i);
        default -> a.add(NODES.nullNode());
      }
    }
  }

  private JsonNode evilValue() {
    String s = pick(EVIL);
    return switch (random.nextInt(6)) {
      case 0 -> NODES.numberNode(random.nextBoolean() ? -1L : Long.MAX_VALUE);
      case 1 -> NODES.numberNode(2.5);
      case 2 -> NODES.booleanNode(random.nextBoolean());
      case 3 -> NODES.nullNode();
      default -> NODES.textNode(s);
    };
  }

  private static void collect(JsonNode node, String path, List<String[]> out) {
    if (node instanceof ObjectNode o) {
      Iterator<Map.Entry<String, JsonNode>> it = o.fields();
      while (it.hasNext()) {
        var e = it.next();
        out.add(new String[] {path, e.getKey()});
        collect(e.getValue(), path + "/" + escape(e.getKey()), out);
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        out.add(new String[] {path, Integer.toString(i)});
        collect(a.get(i), path + "/" + i, out);
      }
    }
  }

  private static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  private static JsonNode at(JsonNode root, String pointer) {
    return pointer.isEmpty() ? root : root.at(pointer);
  }

  private static String dump(JsonNode root) {
    try {
      return YAML.writeValueAsString(root);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}

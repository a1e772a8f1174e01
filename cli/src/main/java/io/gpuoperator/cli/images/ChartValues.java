package io.gpuoperator.cli.images;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.operator.plan.PolicyFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Helm chart's values as the chart turns them into the operator's image and the ClusterPolicy:
 * the chart's defaults (its {@code values.yaml}, bundled) merged with values files as Helm merges
 * them, the registry of {@code global.imageRegistry} and, for an image without a version, the
 * chart's appVersion. Mirrors {@code templates/_helpers.tpl}; ImagesCommandTest checks that both
 * give the same images.
 */
public final class ChartValues {
  private static final String CHART = "/io/gpuoperator/cli/images/chart/";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Object> values;

  private ChartValues(Map<String, Object> values) {
    this.values = values;
  }

  /** The chart's defaults merged with each file in order (later files win, null removes). */
  public static ChartValues load(List<Path> files) {
    Map<String, Object> merged =
        values(Documents.parse(resource("values.yaml"), "the chart's values.yaml"));
    for (Path file : files) {
      // The project's one reader of users' files: size, depth and alias limits, duplicate keys
      // refused, errors as file:line:column without Java's type names.
      merged = merge(merged, values(Documents.read(file)));
    }
    return new ChartValues(merged);
  }

  /** The ClusterPolicy sections the chart passes through from values (from _helpers.tpl). */
  public static List<String> policySections() {
    Matcher m =
        Pattern.compile("define \"gpu-operator.policySections\" -}}\\s*\\{\\{- list ([^|]*)\\|")
            .matcher(resource("templates/_helpers.tpl"));
    if (!m.find()) {
      throw new IllegalStateException("the chart's _helpers.tpl lists no policy sections");
    }
    List<String> out = new ArrayList<>();
    Matcher q = Pattern.compile("\"([A-Za-z]+)\"").matcher(m.group(1));
    while (q.find()) {
      out.add(q.group(1));
    }
    return out;
  }

  /** The operator Deployment's image. */
  public String operatorImage() {
    Map<String, Object> o = map(values.get("operator"));
    String repo = rehost(string(o.get("repository")), registry());
    String version = string(o.get("version"));
    if (version.isEmpty()) {
      version = OperandImages.projectVersion();
    }
    String image = repo + "/" + string(o.get("image"));
    return version.startsWith("sha256:") ? image + "@" + version : image + ":" + version;
  }

  /** The ClusterPolicy the chart renders. */
  public ClusterPolicy policy() {
    Map<String, Object> spec = new LinkedHashMap<>();
    Map<String, Object> o = map(values.get("operator"));
    Map<String, Object> operator = new LinkedHashMap<>();
    operator.put("defaultRuntime", o.get("defaultRuntime"));
    operator.put("runtimeClass", o.get("runtimeClass"));
    if (o.get("initContainer") instanceof Map<?, ?> init && !init.isEmpty()) {
      operator.put("initContainer", section(map(init), true));
    }
    spec.put("operator", operator);
    for (String key : policySections()) {
      if (values.get(key) instanceof Map<?, ?> section && !section.isEmpty()) {
        spec.put(key, section(map(section), true));
      }
    }
    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("apiVersion", "nvidia.com/v1");
    policy.put("kind", "ClusterPolicy");
    policy.put("metadata", Map.of("name", "cluster-policy"));
    policy.put("spec", spec);
    // Checked as the API server would check what helm applies (schema, then binding), so a value
    // of the wrong type is named by its field, not by the Java type it failed to become.
    PolicyFile file =
        PolicyFile.of(Document.of("the ClusterPolicy the values make", JSON.valueToTree(policy)));
    if (!file.valid()) {
      throw new ConfigException(
          String.join("; ", file.errors().stream().map(Object::toString).toList()));
    }
    return file.policy();
  }

  /**
   * A repository moved to {@code registry}: the first path element is replaced when it names a
   * registry host (a dot or a port, or localhost), else the registry is put in front.
   */
  public static String rehost(String repository, String registry) {
    String reg = registry.endsWith("/") ? registry.substring(0, registry.length() - 1) : registry;
    if (reg.isEmpty()) {
      return repository;
    }
    int slash = repository.indexOf('/');
    if (slash > 0) {
      String first = repository.substring(0, slash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
        return reg + repository.substring(slash);
      }
    }
    return reg + "/" + repository;
  }

  private Map<String, Object> section(Map<String, Object> v, boolean top) {
    Map<String, Object> out = new LinkedHashMap<>();
    v.forEach((k, x) -> out.put(k, x instanceof Map<?, ?> m ? section(map(m), false) : x));
    if (out.containsKey("repository") && !string(out.get("image")).isEmpty()) {
      if (!string(out.get("repository")).isEmpty()) {
        out.put("repository", rehost(string(out.get("repository")), registry()));
      }
      if (string(out.get("version")).isEmpty()) {
        out.put("version", OperandImages.projectVersion());
      }
      List<Object> secrets = list(map(values.get("global")).get("imagePullSecrets"));
      if (top && !secrets.isEmpty()) {
        LinkedHashSet<Object> all = new LinkedHashSet<>(list(out.get("imagePullSecrets")));
        all.addAll(secrets);
        out.put("imagePullSecrets", new ArrayList<>(all));
      }
    }
    return out;
  }

  private String registry() {
    return string(map(values.get("global")).get("imageRegistry"));
  }

  /** Helm's merge: maps merge key by key, anything else replaces, null removes the key. */
  static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> overlay) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    overlay.forEach(
        (k, v) -> {
          if (v == null) {
            out.remove(k);
          } else if (v instanceof Map<?, ?> m && out.get(k) instanceof Map<?, ?> b) {
            out.put(k, merge(map(b), map(m)));
          } else {
            out.put(k, v);
          }
        });
    return out;
  }

  /** A values document's top-level map (empty for an empty file), as Helm requires one. */
  private static Map<String, Object> values(Document doc) {
    if (doc.isEmpty()) {
      return new LinkedHashMap<>();
    }
    if (!doc.root().isObject()) {
      throw doc.error(
          "",
          "expected a map of values (key: value lines), got "
              + (doc.root().isArray() ? "a list" : "a single value"));
    }
    return map(doc.toPlain());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : List.of();
  }

  private static String string(Object o) {
    return o == null ? "" : String.valueOf(o).trim();
  }

  private static String resource(String name) {
    try (InputStream in = ChartValues.class.getResourceAsStream(CHART + name)) {
      if (in == null) {
        throw new IllegalStateException(CHART + name + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

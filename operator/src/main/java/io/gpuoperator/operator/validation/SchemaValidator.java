package io.gpuoperator.operator.validation;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.config.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks a raw ClusterPolicy document against the openAPIV3Schema of the CRD this build generates,
 * with the structural-schema subset the API server enforces (types, int-or-string, enum, pattern,
 * minimum/maximum, length, required). Fields the schema does not know are reported as warnings: the
 * API server would silently drop them.
 */
public final class SchemaValidator {
  private final JSONSchemaProps root;

  /** Result of a check: errors the API server would reject, fields it would drop. */
  public record Result(List<Violation> errors, List<Violation> droppedFields) {}

  public SchemaValidator(JSONSchemaProps root) {
    this.root = root;
  }

  private static volatile SchemaValidator clusterPolicy;

  /** The validator for this build's ClusterPolicy CRD (read once: the CRD is part of the jar). */
  public static SchemaValidator clusterPolicy() {
    SchemaValidator v = clusterPolicy;
    if (v == null) {
      v = load();
      clusterPolicy = v;
    }
    return v;
  }

  private static SchemaValidator load() {
    CustomResourceDefinition crd =
        Crds.load().stream()
            .filter(c -> c.getMetadata().getName().equals(ClusterPolicy.CRD_NAME))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException(ClusterPolicy.CRD_NAME + " not found"));
    var version =
        crd.getSpec().getVersions().stream()
            .filter(v -> v.getName().equals(ClusterPolicy.VERSION))
            .findFirst()
            .orElseThrow();
    return new SchemaValidator(version.getSchema().getOpenAPIV3Schema());
  }

  /**
   * Validates {@code spec} (and {@code status} if present) of a parsed document and, like the API
   * server, prunes fields the schema does not know from it (the document must be mutable).
   */
  public Result validate(Map<String, Object> document) {
    List<Violation> errors = new ArrayList<>();
    List<Violation> dropped = new ArrayList<>();
    for (String key : List.of("spec", "status")) {
      JSONSchemaProps schema = root.getProperties().get(key);
      if (schema != null && document.containsKey(key)) {
        check(document.get(key), schema, key, errors, dropped);
      }
    }
    return new Result(errors, dropped);
  }

  @SuppressWarnings("unchecked")
  private void check(
      Object value,
      JSONSchemaProps s,
      String path,
      List<Violation> errors,
      List<Violation> dropped) {
    if (value == null) {
      return; // nulls are pruned by the API server
    }
    if (Boolean.TRUE.equals(s.getXKubernetesIntOrString())) {
      if (!(value instanceof Number n && isInteger(n)) && !(value instanceof String)) {
        errors.add(new Violation(path, "must be an integer or a string, got " + describe(value)));
      }
      return;
    }
    String type = s.getType();
    if (type != null && !matchesType(value, type)) {
      errors.add(new Violation(path, "must be of type " + type + ", got " + describe(value)));
      return;
    }
    if (s.getEnum() != null && !s.getEnum().isEmpty()) {
      List<String> allowed = s.getEnum().stream().map(j -> j.asText()).toList();
      if (!allowed.contains(String.valueOf(value))) {
        errors.add(
            new Violation(
                path,
                "Unsupported value: "
                    + Values.quote(value)
                    + ": supported values: "
                    + allowed.stream()
                        .map(a -> "\"" + a + "\"")
                        .collect(Collectors.joining(", "))));
      }
    }
    if (value instanceof String str) {
      if (s.getPattern() != null && !Pattern.compile(s.getPattern()).matcher(str).find()) {
        errors.add(
            new Violation(
                path, Values.quote(str) + " does not match the pattern " + s.getPattern()));
      }
      if (s.getMaxLength() != null && str.length() > s.getMaxLength()) {
        errors.add(new Violation(path, "must be at most " + s.getMaxLength() + " characters"));
      }
      if (s.getMinLength() != null && str.length() < s.getMinLength()) {
        errors.add(new Violation(path, "must be at least " + s.getMinLength() + " characters"));
      }
    }
    if (value instanceof Number n) {
      if (s.getMinimum() != null && n.doubleValue() < s.getMinimum()) {
        errors.add(new Violation(path, "must be greater than or equal to " + fmt(s.getMinimum())));
      }
      if (s.getMaximum() != null && n.doubleValue() > s.getMaximum()) {
        errors.add(new Violation(path, "must be less than or equal to " + fmt(s.getMaximum())));
      }
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> m = (Map<String, Object>) map;
      if (s.getRequired() != null) {
        for (String r : s.getRequired()) {
          if (!m.containsKey(r) || m.get(r) == null) {
            errors.add(new Violation(path + "." + r, "Required value"));
          }
        }
      }
      Map<String, JSONSchemaProps> props = s.getProperties() == null ? Map.of() : s.getProperties();
      JSONSchemaProps additional =
          s.getAdditionalProperties() == null ? null : s.getAdditionalProperties().getSchema();
      boolean preserve = Boolean.TRUE.equals(s.getXKubernetesPreserveUnknownFields());
      List<String> prune = new ArrayList<>();
      for (var e : m.entrySet()) {
        String child = path + "." + e.getKey();
        JSONSchemaProps cs = props.get(e.getKey());
        if (cs != null) {
          check(e.getValue(), cs, child, errors, dropped);
        } else if (additional != null) {
          check(e.getValue(), additional, child, errors, dropped);
        } else if (!preserve
            && !(s.getAdditionalProperties() != null && s.getAdditionalProperties().getAllows())) {
          dropped.add(new Violation(child, "unknown field: the API server drops it"));
          prune.add(e.getKey());
        }
      }
      prune.forEach(m::remove);
    }
    if (value instanceof List<?> list && s.getItems() != null && s.getItems().getSchema() != null) {
      for (int i = 0; i < list.size(); i++) {
        JSONSchemaProps items = s.getItems().getSchema();
        if (list.get(i) == null && !Boolean.TRUE.equals(items.getNullable())) {
          // Only fields are pruned when null; a null list item is rejected.
          errors.add(
              new Violation(
                  path + "[" + i + "]",
                  "must be of type "
                      + (items.getType() == null ? "value" : items.getType())
                      + ", got null"));
          continue;
        }
        check(list.get(i), items, path + "[" + i + "]", errors, dropped);
      }
    }
  }

  private static boolean matchesType(Object v, String type) {
    return switch (type) {
      case "object" -> v instanceof Map;
      case "array" -> v instanceof List;
      case "string" -> v instanceof String;
      case "boolean" -> v instanceof Boolean;
      case "integer" -> v instanceof Number n && isInteger(n);
      case "number" -> v instanceof Number;
      default -> true;
    };
  }

  private static boolean isInteger(Number n) {
    return n instanceof Integer
        || n instanceof Long
        || n instanceof Short
        || n instanceof java.math.BigInteger
        || (n.doubleValue() == Math.rint(n.doubleValue()) && !Double.isInfinite(n.doubleValue()));
  }

  private static String describe(Object v) {
    String type =
        v instanceof Map
            ? "object"
            : v instanceof List
                ? "array"
                : v instanceof String ? "string" : v instanceof Boolean ? "boolean" : "number";
    return type + (v instanceof Map || v instanceof List ? "" : " " + Values.show(v));
  }

  private static String fmt(Double d) {
    return d == Math.rint(d) ? String.valueOf(d.longValue()) : d.toString();
  }
}

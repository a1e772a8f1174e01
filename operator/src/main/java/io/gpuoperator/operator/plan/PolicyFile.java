package io.gpuoperator.operator.plan;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Values;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.validation.IgnoredFields;
import io.gpuoperator.operator.validation.SchemaValidator;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A ClusterPolicy read from a file and checked offline the way the API server and the operator
 * would: the file through the project's one loading path ({@link Documents}: syntax, duplicate
 * keys, one document, limits), then document shape, the CRD schema, typed binding and {@link
 * PolicyValidator}. Every problem keeps its field path; {@link #where} adds the file's line.
 *
 * @param policy the bound policy, or null when it could not be bound
 * @param errors everything that makes the policy invalid, with field paths
 * @param warnings fields the API server would drop, and fields the operator would ignore
 * @param document the file, for the line of each field
 */
public record PolicyFile(
    ClusterPolicy policy, List<Violation> errors, List<Violation> warnings, Document document) {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Whether the policy can be applied. */
  public boolean valid() {
    return policy != null && errors.isEmpty();
  }

  /** {@code file:line:column path: reason} for one of this file's violations. */
  public String where(Violation v) {
    return document.where(v.path()) + ": " + v.reason();
  }

  /**
   * Parses and checks YAML text; {@code source} names it in messages. A file that is not YAML (or
   * has duplicate keys, two documents ...) is a ConfigException with its line.
   */
  public static PolicyFile parse(String yaml, String source) {
    return of(Documents.parse(yaml, source));
  }

  /** Checks a document read by {@link Documents}. */
  @SuppressWarnings("unchecked")
  public static PolicyFile of(Document doc) {
    List<Violation> errors = new ArrayList<>();
    if (!(doc.toPlain() instanceof Map<?, ?> raw)) {
      errors.add(
          new Violation("", "expected a ClusterPolicy object (a mapping), got " + kind(doc)));
      return new PolicyFile(null, errors, List.of(), doc);
    }
    Map<String, Object> document = (Map<String, Object>) raw;
    String apiVersion = ClusterPolicy.GROUP + "/" + ClusterPolicy.VERSION;
    if (!apiVersion.equals(document.get("apiVersion"))) {
      errors.add(
          new Violation(
              "apiVersion",
              "must be " + apiVersion + ", got " + Values.quote(document.get("apiVersion"))));
    }
    if (!"ClusterPolicy".equals(document.get("kind"))) {
      errors.add(
          new Violation(
              "kind", "must be ClusterPolicy, got " + Values.quote(document.get("kind"))));
    }
    Object metadata = document.get("metadata");
    if (!(metadata instanceof Map<?, ?> m)
        || !(m.get("name") instanceof String name)
        || name.isBlank()) {
      errors.add(new Violation("metadata.name", "Required value"));
    } else if (name.length() > 253
        || !name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")) {
      errors.add(
          new Violation(
              "metadata.name",
              "Invalid value: "
                  + Values.quote(name)
                  + ": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                  + " characters, '-' or '.', and must start and end with an alphanumeric"
                  + " character"));
    }
    if (metadata instanceof Map<?, ?> m) {
      metadataMaps((Map<String, Object>) m, errors);
    }
    if (!document.containsKey("spec") || document.get("spec") == null) {
      errors.add(new Violation("spec", "Required value"));
    }
    SchemaValidator.Result schema = SchemaValidator.clusterPolicy().validate(document);
    errors.addAll(schema.errors());
    if (!errors.isEmpty()) {
      return new PolicyFile(null, errors, schema.droppedFields(), doc);
    }
    ClusterPolicy policy;
    try {
      // Bind what the API server would store: the document with unknown fields pruned.
      // apiVersion and kind are fixed by the class (checked above).
      Map<String, Object> body = new LinkedHashMap<>(document);
      body.remove("apiVersion");
      body.remove("kind");
      policy = SERIALIZATION.convertValue(ints(body), ClusterPolicy.class);
    } catch (RuntimeException e) {
      errors.add(bindingError(e));
      return new PolicyFile(null, errors, schema.droppedFields(), doc);
    }
    errors.addAll(Operands.validate(policy));
    List<Violation> warnings = new ArrayList<>(schema.droppedFields());
    warnings.addAll(IgnoredFields.of(policy));
    return new PolicyFile(policy, errors, warnings, doc);
  }

  /**
   * The document with whole numbers that fit an int as Integer: the YAML reader gives Long, which
   * fabric8's IntOrString refuses ("Either integer or string value needs to be provided"), so
   * {@code maxConcurrent: 3} failed where {@code "10%"} passed.
   */
  @SuppressWarnings("unchecked")
  static Object ints(Object value) {
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<String, Object>) m).forEach((k, v) -> out.put(k, ints(v)));
      return out;
    }
    if (value instanceof List<?> l) {
      return l.stream().map(PolicyFile::ints).toList();
    }
    if (value instanceof Long l && l.intValue() == l) {
      return l.intValue();
    }
    if (value instanceof java.math.BigInteger b && b.bitLength() < 32) {
      return b.intValue();
    }
    return value;
  }

  /** Labels and annotations must be maps of strings, as the API server's ObjectMeta has them. */
  private static void metadataMaps(Map<String, Object> metadata, List<Violation> errors) {
    for (String key : List.of("labels", "annotations")) {
      Object v = metadata.get(key);
      if (v == null) {
        continue;
      }
      if (!(v instanceof Map<?, ?> map)) {
        errors.add(new Violation("metadata." + key, "must be a mapping of strings"));
        continue;
      }
      map.forEach(
          (k, value) -> {
            if (!(value instanceof String)) {
              errors.add(
                  new Violation(
                      "metadata." + key + "." + k,
                      "must be a string (quote it), got " + Values.quote(value)));
            }
          });
    }
  }

  private static String kind(Document doc) {
    var root = doc.root();
    return root.isArray() ? "a list" : root.isNull() ? "an empty file" : "a single value";
  }

  /** A Jackson binding failure as a field path and reason. */
  static Violation bindingError(Throwable e) {
    Throwable t = e;
    while (t != null && !(t instanceof JsonMappingException)) {
      t = t.getCause();
    }
    if (t instanceof JsonMappingException jme) {
      StringBuilder path = new StringBuilder();
      for (JsonMappingException.Reference ref : jme.getPath()) {
        if (ref.getFieldName() != null) {
          if (path.length() > 0) {
            path.append('.');
          }
          path.append(ref.getFieldName());
        } else if (ref.getIndex() >= 0) {
          path.append('[').append(ref.getIndex()).append(']');
        }
      }
      String reason = Values.plain(jme.getOriginalMessage());
      return new Violation(path.toString(), reason.isBlank() ? "invalid value" : reason);
    }
    String reason = Values.plain(e.getMessage());
    return new Violation("", reason.isBlank() ? "invalid value" : reason);
  }
}

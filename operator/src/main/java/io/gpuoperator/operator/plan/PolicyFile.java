package io.gpuoperator.operator.plan;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.validation.IgnoredFields;
import io.gpuoperator.operator.validation.SchemaValidator;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A ClusterPolicy read from YAML and checked offline the way the API server and the operator would:
 * document shape, the CRD schema, typed binding, then {@link PolicyValidator}.
 *
 * @param policy the bound policy, or null when it could not be bound
 * @param errors everything that makes the policy invalid, with field paths
 * @param warnings fields the API server would drop, and fields the operator would ignore
 */
public record PolicyFile(ClusterPolicy policy, List<Violation> errors, List<Violation> warnings) {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Whether the policy can be applied. */
  public boolean valid() {
    return policy != null && errors.isEmpty();
  }

  /** Parses and checks YAML text. */
  @SuppressWarnings("unchecked")
  public static PolicyFile parse(String yaml) {
    List<Violation> errors = new ArrayList<>();
    Object raw;
    try {
      raw = SERIALIZATION.unmarshal(yaml, Map.class);
    } catch (RuntimeException e) {
      errors.add(new Violation("(document)", "not valid YAML: " + firstLine(e)));
      return new PolicyFile(null, errors, List.of());
    }
    if (!(raw instanceof Map<?, ?> doc)) {
      errors.add(new Violation("(document)", "expected a ClusterPolicy object"));
      return new PolicyFile(null, errors, List.of());
    }
    Map<String, Object> document = (Map<String, Object>) doc;
    String apiVersion = ClusterPolicy.GROUP + "/" + ClusterPolicy.VERSION;
    if (!apiVersion.equals(document.get("apiVersion"))) {
      errors.add(
          new Violation(
              "apiVersion", "must be " + apiVersion + ", got " + document.get("apiVersion")));
    }
    if (!"ClusterPolicy".equals(document.get("kind"))) {
      errors.add(new Violation("kind", "must be ClusterPolicy, got " + document.get("kind")));
    }
    Object metadata = document.get("metadata");
    if (!(metadata instanceof Map<?, ?> m)
        || !(m.get("name") instanceof String name)
        || name.isBlank()) {
      errors.add(new Violation("metadata.name", "Required value"));
    }
    if (!document.containsKey("spec") || document.get("spec") == null) {
      errors.add(new Violation("spec", "Required value"));
    }
    SchemaValidator.Result schema = SchemaValidator.clusterPolicy().validate(document);
    errors.addAll(schema.errors());
    if (!errors.isEmpty()) {
      return new PolicyFile(null, errors, schema.droppedFields());
    }
    ClusterPolicy policy;
    try {
      // Bind what the API server would store: the document with unknown fields pruned.
      // apiVersion and kind are fixed by the class (checked above).
      Map<String, Object> body = new java.util.LinkedHashMap<>(document);
      body.remove("apiVersion");
      body.remove("kind");
      policy = SERIALIZATION.convertValue(body, ClusterPolicy.class);
    } catch (RuntimeException e) {
      errors.add(bindingError(e));
      return new PolicyFile(null, errors, schema.droppedFields());
    }
    errors.addAll(Operands.validate(policy));
    List<Violation> warnings = new ArrayList<>(schema.droppedFields());
    warnings.addAll(IgnoredFields.of(policy));
    return new PolicyFile(policy, errors, warnings);
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
      return new Violation(
          path.length() == 0 ? "(document)" : path.toString(), firstLine(jme.getOriginalMessage()));
    }
    return new Violation("(document)", firstLine(e));
  }

  private static String firstLine(Throwable e) {
    return firstLine(String.valueOf(e.getMessage()));
  }

  private static String firstLine(String s) {
    return s.lines().findFirst().orElse(s);
  }
}

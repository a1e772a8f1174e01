package io.gpuoperator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The generated CRDs stay compatible with the last released ones (kept under
 * src/test/resources/released-crds): no field removed or retyped, no enum value dropped, no new
 * required field. Users' stored ClusterPolicies must keep validating after an upgrade. When a
 * release is cut, copy target/classes/META-INF/fabric8/*.yml there. And no property is named like a
 * Java accessor ({@code getAdditionalProperties}, {@code isEnabled}): that is the generator reading
 * a method, not a field of the original's API.
 */
class CrdCompatibilityTest {
  private static final Pattern GETTER_LIKE = Pattern.compile("^(get|set|is)[A-Z].*");

  @Test
  void noPropertyIsNamedLikeAJavaAccessor() {
    for (CustomResourceDefinition crd : Crds.load()) {
      List<String> found = new ArrayList<>();
      for (var version : crd.getSpec().getVersions()) {
        getterLike(version.getSchema().getOpenAPIV3Schema(), found);
      }
      assertThat(found).as("getter-like properties in %s", crd.getMetadata().getName()).isEmpty();
    }
  }

  /** The check itself catches what the generator leaked before (a schema with such a name). */
  @Test
  void theAccessorCheckFindsALeakedGetter() {
    JSONSchemaProps leaked = new JSONSchemaProps();
    leaked.setProperties(
        Map.of("enabled", new JSONSchemaProps(), "getAdditionalProperties", new JSONSchemaProps()));
    JSONSchemaProps root = new JSONSchemaProps();
    root.setProperties(Map.of("devicePlugin", leaked));
    List<String> found = new ArrayList<>();
    getterLike(root, found);
    assertThat(found).containsExactly("devicePlugin.getAdditionalProperties");
  }

  /** The comparison reports a dropped and a retyped field. */
  @Test
  void theComparisonFindsDroppedAndRetypedFields() {
    JSONSchemaProps old = object(Map.of("a", scalar("string"), "b", scalar("boolean")));
    JSONSchemaProps now = object(Map.of("b", scalar("string")));
    List<String> problems = new ArrayList<>();
    compare("", old, now, problems);
    assertThat(problems)
        .containsExactlyInAnyOrder(".a: field was removed", ".b: type boolean became string");
  }

  private static JSONSchemaProps scalar(String type) {
    JSONSchemaProps p = new JSONSchemaProps();
    p.setType(type);
    return p;
  }

  private static JSONSchemaProps object(Map<String, JSONSchemaProps> props) {
    JSONSchemaProps p = scalar("object");
    p.setProperties(props);
    return p;
  }

  /** The schema's property paths whose own name (the last one) looks like a Java accessor. */
  private static void getterLike(JSONSchemaProps schema, List<String> out) {
    for (String path : Crds.fieldPaths(schema)) {
      if (GETTER_LIKE.matcher(path.substring(path.lastIndexOf('.') + 1)).matches()) {
        out.add(path);
      }
    }
  }

  @Test
  void generatedCrdsAreBackwardCompatibleWithTheReleasedOnes() throws Exception {
    for (CustomResourceDefinition generated : Crds.load()) {
      String file = generated.getMetadata().getName() + "-v1.yml";
      CustomResourceDefinition released;
      try (InputStream in = getClass().getResourceAsStream("/released-crds/" + file)) {
        assertThat(in).as("released copy of %s", file).isNotNull();
        released = Serialization.unmarshal(in, CustomResourceDefinition.class);
      }
      List<String> problems = new ArrayList<>();
      for (var oldVersion : released.getSpec().getVersions()) {
        var newVersion =
            generated.getSpec().getVersions().stream()
                .filter(v -> v.getName().equals(oldVersion.getName()))
                .findFirst();
        if (newVersion.isEmpty()) {
          problems.add("version " + oldVersion.getName() + " was removed");
          continue;
        }
        compare(
            "",
            oldVersion.getSchema().getOpenAPIV3Schema(),
            newVersion.get().getSchema().getOpenAPIV3Schema(),
            problems);
      }
      assertThat(problems).as("incompatible changes in %s", file).isEmpty();
    }
  }

  private static void compare(
      String path, JSONSchemaProps old, JSONSchemaProps now, List<String> out) {
    if (!Objects.equals(old.getType(), now.getType())) {
      out.add(path + ": type " + old.getType() + " became " + now.getType());
    }
    if (Boolean.TRUE.equals(old.getXKubernetesIntOrString())
        && !Boolean.TRUE.equals(now.getXKubernetesIntOrString())) {
      out.add(path + ": no longer int-or-string");
    }
    if (old.getEnum() != null) {
      if (now.getEnum() == null) {
        return; // widened to any value: compatible
      }
      for (var value : old.getEnum()) {
        if (!now.getEnum().contains(value)) {
          out.add(path + ": enum value " + value + " was removed");
        }
      }
    }
    List<String> oldRequired = old.getRequired() == null ? List.of() : old.getRequired();
    if (now.getRequired() != null) {
      for (String r : now.getRequired()) {
        if (!oldRequired.contains(r)) {
          out.add(path + ": new required field " + r);
        }
      }
    }
    Map<String, JSONSchemaProps> oldProps = old.getProperties();
    if (oldProps != null) {
      Map<String, JSONSchemaProps> newProps =
          now.getProperties() == null ? Map.of() : now.getProperties();
      for (var e : oldProps.entrySet()) {
        JSONSchemaProps next = newProps.get(e.getKey());
        if (next == null) {
          if (!Boolean.TRUE.equals(now.getXKubernetesPreserveUnknownFields())) {
            out.add(path + "." + e.getKey() + ": field was removed");
          }
        } else {
          compare(path + "." + e.getKey(), e.getValue(), next, out);
        }
      }
    }
    if (old.getItems() != null && old.getItems().getSchema() != null && now.getItems() != null) {
      compare(path + "[]", old.getItems().getSchema(), now.getItems().getSchema(), out);
    }
  }
}

package io.gpuoperator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1alpha1.GPUClusterSpec;
import io.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The CRDs document every field a user sets and keep nothing they do not know: each field of this
 * module's spec classes has a description (what {@code kubectl explain} shows), and no schema
 * preserves unknown fields (the API server prunes them and warns, so a typo is reported).
 */
class CrdDocumentationTest {
  /**
   * Where a user's opaque content is kept as written: a mig-parted entry's {@code devices} is "all"
   * or a list of indices, which a structural schema cannot express as one type.
   */
  private static final List<String> OPAQUE = List.of("spec.migManager.configs{}[].devices");

  @Test
  void everyFieldOfTheSpecClassesHasADescription() {
    List<String> missing = new ArrayList<>();
    Set<Class<?>> seen = new HashSet<>();
    walk(ClusterPolicySpec.class, "ClusterPolicy.spec", missing, seen);
    walk(NVIDIADriverSpec.class, "NVIDIADriver.spec", missing, seen);
    walk(GPUClusterSpec.class, "GPUCluster.spec", missing, seen);
    walk(ComputeDomainSpec.class, "ComputeDomain.spec", missing, seen);
    assertThat(seen).hasSizeGreaterThan(20);
    assertThat(missing).as("fields without @JsonPropertyDescription").isEmpty();
  }

  @Test
  void theGeneratedSchemasCarryTheDescriptionsAndPruneUnknownFields() {
    for (CustomResourceDefinition crd : Crds.load()) {
      JSONSchemaProps spec = Crds.specSchema(crd);
      // One section each CRD has: ClusterPolicy's devicePlugin, NVIDIADriver's manager,
      // GPUCluster's draDriver, ComputeDomain's channel.
      JSONSchemaProps section =
          List.of("devicePlugin", "manager", "draDriver", "channel").stream()
              .map(spec.getProperties()::get)
              .filter(java.util.Objects::nonNull)
              .findFirst()
              .orElseThrow();
      assertThat(section.getDescription()).as(crd.getMetadata().getName()).isNotBlank();
      assertThat(
              section
                  .getProperties()
                  .getOrDefault(
                      "enabled",
                      section
                          .getProperties()
                          .getOrDefault(
                              "image", section.getProperties().get("resourceClaimTemplate")))
                  .getDescription())
          .isNotBlank();
      List<String> preserving = new ArrayList<>();
      preserveUnknown("spec", spec, preserving);
      assertThat(preserving).as("schemas keeping unknown fields").isSubsetOf(OPAQUE);
    }
  }

  @Test
  void everyCrdShowsAnAgeColumn() {
    for (CustomResourceDefinition crd : Crds.load()) {
      assertThat(crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns())
          .anySatisfy(
              c -> {
                assertThat(c.getName()).isEqualTo("Age");
                assertThat(c.getJsonPath()).isEqualTo(".metadata.creationTimestamp");
                assertThat(c.getType()).isEqualTo("date");
              });
    }
  }

  private static void preserveUnknown(String path, JSONSchemaProps s, List<String> out) {
    if (s == null) {
      return;
    }
    if (Boolean.TRUE.equals(s.getXKubernetesPreserveUnknownFields())) {
      out.add(path);
    }
    if (s.getProperties() != null) {
      s.getProperties().forEach((k, v) -> preserveUnknown(path + "." + k, v, out));
    }
    if (s.getItems() != null) {
      preserveUnknown(path + "[]", s.getItems().getSchema(), out);
    }
    if (s.getAdditionalProperties() != null) {
      preserveUnknown(path + "{}", s.getAdditionalProperties().getSchema(), out);
    }
  }

  private static void walk(Class<?> type, String path, List<String> missing, Set<Class<?>> seen) {
    if (!seen.add(type)) {
      return;
    }
    for (Class<?> c = type; c != null && ours(c); c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || !Modifier.isPublic(f.getModifiers())) {
          continue;
        }
        JsonProperty renamed = f.getAnnotation(JsonProperty.class);
        String name = renamed == null ? f.getName() : renamed.value();
        JsonPropertyDescription d = f.getAnnotation(JsonPropertyDescription.class);
        if (d == null || d.value().isBlank()) {
          missing.add(path + "." + name + " (" + c.getSimpleName() + ")");
        }
        for (Class<?> child : types(f.getGenericType())) {
          if (ours(child) && !child.isEnum()) {
            walk(child, path + "." + name, missing, seen);
          }
        }
      }
    }
  }

  private static boolean ours(Class<?> c) {
    return c.getName().startsWith("io.gpuoperator.api.");
  }

  private static List<Class<?>> types(Type t) {
    List<Class<?>> out = new ArrayList<>();
    if (t instanceof Class<?> c) {
      out.add(c);
    } else if (t instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        out.addAll(types(arg));
      }
    }
    return out;
  }
}

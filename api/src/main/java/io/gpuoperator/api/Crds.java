package io.gpuoperator.api;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** The CRDs generated from this module's classes at build time, and their installation. */
public final class Crds {
  /** Classpath locations written by fabric8's crd-generator. */
  public static final List<String> RESOURCES =
      List.of(
          "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml",
          "/META-INF/fabric8/nvidiadrivers.nvidia.com-v1.yml",
          "/META-INF/fabric8/gpuclusters.nvidia.com-v1.yml",
          "/META-INF/fabric8/computedomains.resource.nvidia.com-v1.yml");

  private Crds() {}

  /** The generated CRDs as typed objects. */
  public static List<CustomResourceDefinition> load() {
    List<CustomResourceDefinition> out = new ArrayList<>();
    for (String resource : RESOURCES) {
      try (InputStream in = Crds.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is missing: was the api module built?");
        }
        out.add(Serialization.unmarshal(in, CustomResourceDefinition.class));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** Creates or updates every CRD and waits until the API server serves them. */
  public static void apply(KubernetesClient client) {
    for (CustomResourceDefinition crd : load()) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .createOr(NonDeletingOperation::update);
    }
    for (CustomResourceDefinition crd : load()) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(Crds::established, 60, TimeUnit.SECONDS);
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The schema of {@code spec} in the CRD's first version (each of ours serves one). */
  public static JSONSchemaProps specSchema(CustomResourceDefinition crd) {
    return crd.getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema()
        .getProperties()
        .get("spec");
  }

  /**
   * Every property path of a schema, sorted: {@code driver.version}; below an array's items {@code
   * tolerations[].key}, below a map's values {@code nodeSelector{}.x}. The operator compares an
   * installed CRD's paths with this release's (CrdUpgrade); a test looks for accessor-like names
   * among them.
   */
  public static SortedSet<String> fieldPaths(JSONSchemaProps schema) {
    SortedSet<String> out = new TreeSet<>();
    collect(schema, "", out);
    return out;
  }

  private static void collect(JSONSchemaProps schema, String prefix, Set<String> out) {
    if (schema == null) {
      return;
    }
    if (schema.getProperties() != null) {
      schema
          .getProperties()
          .forEach(
              (name, child) -> {
                String path = prefix.isEmpty() ? name : prefix + "." + name;
                out.add(path);
                collect(child, path, out);
              });
    }
    if (schema.getItems() != null) {
      collect(schema.getItems().getSchema(), prefix + "[]", out);
    }
    if (schema.getAdditionalProperties() != null) {
      collect(schema.getAdditionalProperties().getSchema(), prefix + "{}", out);
    }
  }
}

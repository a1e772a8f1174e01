package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.controlplane.K8sVersions;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OLM bundle in {@code deploy/olm} on a real API server that serves OLM's own API types: OLM's
 * CRDs (the {@code crds/} of the Go module {@code github.com/operator-framework/api} at the version
 * pinned in {@code scripts/k8s-versions.env}, fetched by {@code scripts/test-deps.sh}) are
 * installed, then every file of {@code manifests/} (the bundle's CRDs, the CSV, the operands' RBAC,
 * the Service and the PodDisruptionBudget) and the CSV's examples are created with strict field
 * validation, so a field the types do not declare fails, and the CSV read back equals the file (no
 * field pruned). No OLM controller runs: this checks the objects' schema, not an installation.
 */
class OlmBundleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CSV_CRD = "operators.coreos.com_clusterserviceversions.yaml";

  private static ControlPlane cp;

  @BeforeAll
  static void start() throws Exception {
    Path crds = olmCrds();
    cp = ControlPlane.builder().controllerManager(false).scheduler(false).start();
    List<CustomResourceDefinition> olm = new ArrayList<>();
    try (Stream<Path> files = Files.list(crds)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        olm.add(Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class));
      }
    }
    assertThat(olm)
        .extracting(c -> c.getSpec().getNames().getKind())
        .contains("ClusterServiceVersion", "OperatorGroup");
    for (CustomResourceDefinition crd : olm) {
      cp.client().apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
    for (CustomResourceDefinition crd : olm) {
      established(crd.getMetadata().getName());
    }
  }

  @AfterAll
  static void stop() {
    if (cp != null) {
      cp.close();
    }
  }

  /**
   * OLM's CRDs: the folder of {@code -Dgpu-operator.olm.crds} (its CSV CRD file), else where {@code
   * scripts/test-deps.sh} caches them; without them the test skips, and fails under {@code
   * CI=true}.
   */
  static Path olmCrds() {
    return CachedTestFile.of(
            "gpu-operator.olm.crds",
            Path.of("olm-api", K8sVersions.OLM_API, "crds", CSV_CRD),
            "olm_crds")
        .getParent();
  }

  @Test
  void theBundlesObjectsAreValidOlmAndKubernetesObjects() throws Exception {
    KubernetesClient client = cp.client();
    ControlPlaneExtension.createNamespace(client, OlmBundle.NAMESPACE, Map.of());

    List<Path> manifests;
    try (Stream<Path> files = Files.list(OlmBundle.DIR.resolve("manifests"))) {
      manifests = files.sorted().toList();
    }
    // The CRDs first, as OLM installs them before the CSV.
    List<GenericKubernetesResource> others = new ArrayList<>();
    GenericKubernetesResource csv = null;
    for (Path file : manifests) {
      GenericKubernetesResource object = read(file);
      switch (object.getKind()) {
        case "CustomResourceDefinition" -> {
          client.resource(object).fieldValidation(Validation.STRICT).create();
          established(object.getMetadata().getName());
        }
        case "ClusterServiceVersion" -> csv = object;
        default -> others.add(object);
      }
    }
    assertThat(csv).as("a ClusterServiceVersion in manifests/").isNotNull();

    GenericKubernetesResource created =
        client
            .resource(csv)
            .inNamespace(OlmBundle.NAMESPACE)
            .fieldValidation(Validation.STRICT)
            .create();
    // Read back as stored: nothing the CSV says was pruned by OLM's schema.
    GenericKubernetesResource stored =
        client
            .genericKubernetesResources("operators.coreos.com/v1alpha1", "ClusterServiceVersion")
            .inNamespace(OlmBundle.NAMESPACE)
            .withName(created.getMetadata().getName())
            .get();
    JsonNode storedSpec = JSON.valueToTree(stored.getAdditionalProperties().get("spec"));
    JsonNode sentSpec = JSON.valueToTree(csv.getAdditionalProperties().get("spec"));
    // Nothing sent was pruned or changed; the schema only adds its defaults (ports' protocol).
    assertThat(lost("spec", sentSpec, storedSpec)).as("sent vs stored").isEmpty();
    assertThat(stored.getMetadata().getAnnotations())
        .containsAllEntriesOf(csv.getMetadata().getAnnotations());

    for (GenericKubernetesResource object : others) {
      var resource = client.resource(object);
      boolean namespaced = !object.getKind().startsWith("Cluster");
      (namespaced ? resource.inNamespace(OlmBundle.NAMESPACE) : resource)
          .fieldValidation(Validation.STRICT)
          .create();
    }

    // The examples the console offers are valid objects of the bundle's CRDs.
    JsonNode examples = JSON.readTree(csv.getMetadata().getAnnotations().get("alm-examples"));
    for (JsonNode example : examples) {
      GenericKubernetesResource object = JSON.treeToValue(example, GenericKubernetesResource.class);
      client.resource(object).fieldValidation(Validation.STRICT).create();
    }

    // An OwnNamespace OperatorGroup, as the CSV's install modes allow.
    GenericKubernetesResource group =
        Serialization.unmarshal(
            "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n  name: gpu-operator\n"
                + "spec:\n  targetNamespaces: ["
                + OlmBundle.NAMESPACE
                + "]\n",
            GenericKubernetesResource.class);
    client
        .resource(group)
        .inNamespace(OlmBundle.NAMESPACE)
        .fieldValidation(Validation.STRICT)
        .create();
  }

  /** The check can fail: a misspelt CSV field is refused by OLM's schema, naming the field. */
  @Test
  void aFieldOlmDoesNotDeclareIsRefusedNamingIt() throws IOException {
    GenericKubernetesResource csv = read(OlmBundle.DIR.resolve(OlmBundle.CSV_FILE));
    ObjectNode spec = JSON.valueToTree(csv.getAdditionalProperties().get("spec"));
    ((ObjectNode) spec.get("installModes").get(0)).put("supportd", true);
    csv.setAdditionalProperty("spec", JSON.convertValue(spec, Object.class));
    csv.getMetadata().setName("typo.v0.0.0");
    assertThatThrownBy(
            () ->
                cp.client()
                    .resource(csv)
                    .inNamespace("default")
                    .dryRun()
                    .fieldValidation(Validation.STRICT)
                    .create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.installModes[0].supportd");
  }

  /**
   * The paths where {@code b} lacks or changes a value of {@code a}, each with both values; what
   * {@code b} adds is not reported.
   */
  static List<String> lost(String path, JsonNode a, JsonNode b) {
    List<String> out = new ArrayList<>();
    if (a != null && b != null && a.isObject() && b.isObject()) {
      Set<String> keys = new TreeSet<>();
      a.fieldNames().forEachRemaining(keys::add);
      b.fieldNames().forEachRemaining(keys::add);
      keys.forEach(k -> out.addAll(lost(path + "." + k, a.get(k), b.get(k))));
    } else if (a != null && b != null && a.isArray() && b.isArray() && a.size() == b.size()) {
      for (int i = 0; i < a.size(); i++) {
        out.addAll(lost(path + "[" + i + "]", a.get(i), b.get(i)));
      }
    } else if (a != null && !a.equals(b)) {
      out.add(path + ": " + a + " -> " + b);
    }
    return out;
  }

  private static GenericKubernetesResource read(Path file) throws IOException {
    return Serialization.unmarshal(Files.readString(file), GenericKubernetesResource.class);
  }

  private static void established(String crd) {
    cp.client()
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(crd)
        .waitUntilCondition(
            c ->
                c != null
                    && c.getStatus() != null
                    && c.getStatus().getConditions() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(
                            x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
            60,
            TimeUnit.SECONDS);
  }
}

package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.images.ChartValues;
import io.gpuoperator.cli.images.ImagesCommand;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.driver.DriverChecks;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.plan.PolicyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OLM bundle in {@code deploy/olm} is what the build generates now ({@link OlmBundle}), and its
 * structure is what OLM and the chart expect: the annotations' keys, the CSV's RBAC and Deployment
 * equal to the chart's, every related image one the operator renders, examples our validation
 * accepts. Regenerate with {@code mvn -pl cli -am test -Dtest=OlmBundleTest -Dchart.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false}. OlmBundleIT creates it on a real API server with OLM's
 * CRDs.
 */
class OlmBundleTest {
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> AGENTS =
      OperatorConfig.subcommandsOf(GpuOperatorCommand.commandLine().getCommandSpec());

  private static List<GenericKubernetesResource> chart;
  private static JsonNode csv;

  @BeforeAll
  static void read() throws IOException {
    chart = OlmBundle.chart(Map.of());
    Path file = OlmBundle.DIR.resolve(OlmBundle.CSV_FILE);
    csv = Files.isRegularFile(file) ? YAML.readTree(file.toFile()) : null;
  }

  @Test
  void generatedFilesAreCurrent() throws IOException {
    Map<String, String> expected = OlmBundle.expected();
    if (ChartFilesTest.update()) {
      if (Files.isDirectory(OlmBundle.DIR.resolve("manifests"))) {
        try (Stream<Path> old = Files.list(OlmBundle.DIR.resolve("manifests"))) {
          for (Path p : old.toList()) {
            Files.delete(p);
          }
        }
      }
      for (Map.Entry<String, String> e : expected.entrySet()) {
        Path file = OlmBundle.DIR.resolve(e.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, e.getValue());
      }
      read();
    }
    for (Map.Entry<String, String> e : expected.entrySet()) {
      Path file = OlmBundle.DIR.resolve(e.getKey());
      assertThat(file).as("%s (regenerate with -Dchart.update=true)", file).exists();
      assertThat(Files.readString(file))
          .as("%s differs from the build's; regenerate with -Dchart.update=true", file)
          .isEqualTo(e.getValue());
    }
    Set<String> present;
    try (Stream<Path> files = Files.walk(OlmBundle.DIR)) {
      present =
          files
              .filter(Files::isRegularFile)
              .map(p -> OlmBundle.DIR.relativize(p).toString().replace('\\', '/'))
              .filter(p -> !p.equals("README.md"))
              .collect(Collectors.toCollection(TreeSet::new));
    }
    assertThat(present)
        .as("files of %s", OlmBundle.DIR)
        .isEqualTo(new TreeSet<>(expected.keySet()));
  }

  @Test
  void annotationsAndDockerfileLabelsDescribeARegistryV1Bundle() throws IOException {
    JsonNode annotations =
        YAML.readTree(OlmBundle.DIR.resolve(OlmBundle.ANNOTATIONS_FILE).toFile())
            .get("annotations");
    assertThat(annotations.get("operators.operatorframework.io.bundle.mediatype.v1").asText())
        .isEqualTo("registry+v1");
    assertThat(annotations.get("operators.operatorframework.io.bundle.manifests.v1").asText())
        .isEqualTo("manifests/");
    assertThat(annotations.get("operators.operatorframework.io.bundle.metadata.v1").asText())
        .isEqualTo("metadata/");
    assertThat(annotations.get("operators.operatorframework.io.bundle.package.v1").asText())
        .isEqualTo("gpu-operator-certified");
    String channels = annotations.get("operators.operatorframework.io.bundle.channels.v1").asText();
    assertThat(List.of(channels.split(",")))
        .contains(
            annotations.get("operators.operatorframework.io.bundle.channel.default.v1").asText());
    // The image's labels say the same (OLM reads the labels of a bundle image).
    String dockerfile = Files.readString(OlmBundle.DIR.resolve(OlmBundle.DOCKERFILE));
    annotations
        .fields()
        .forEachRemaining(
            e ->
                assertThat(dockerfile)
                    .contains("LABEL " + e.getKey() + "=" + e.getValue().asText() + "\n"));
    assertThat(dockerfile)
        .contains("COPY manifests /manifests/")
        .contains("COPY metadata /metadata/");
    for (String dir : List.of("manifests", "metadata")) {
      assertThat(OlmBundle.DIR.resolve(dir)).isDirectory();
    }
  }

  @Test
  void theCsvsPermissionsAreTheChartsRbac() {
    JsonNode spec = csv.at("/spec/install/spec");
    assertThat(csv.at("/spec/install/strategy").asText()).isEqualTo("deployment");
    assertThat(spec.at("/clusterPermissions/0/serviceAccountName").asText())
        .isEqualTo("gpu-operator");
    assertThat(spec.at("/clusterPermissions/0/rules"))
        .isEqualTo(
            JSON.valueToTree(HelmChart.find(chart, "ClusterRole", "gpu-operator")).get("rules"));
    assertThat(spec.at("/permissions/0/serviceAccountName").asText()).isEqualTo("gpu-operator");
    assertThat(spec.at("/permissions/0/rules"))
        .isEqualTo(JSON.valueToTree(HelmChart.find(chart, "Role", "gpu-operator")).get("rules"));
    assertThat(spec.get("clusterPermissions")).hasSize(1);
    assertThat(spec.get("permissions")).hasSize(1);
    // The account the chart binds them to is the Deployment's.
    assertThat(spec.at("/deployments/0/spec/template/spec/serviceAccountName").asText())
        .isEqualTo("gpu-operator");
  }

  @Test
  void theCsvsDeploymentIsTheChartsOnOpenShift() {
    JsonNode deployment = JSON.valueToTree(HelmChart.find(chart, "Deployment", "gpu-operator"));
    assertThat(csv.at("/spec/install/spec/deployments/0/name").asText()).isEqualTo("gpu-operator");
    assertThat(csv.at("/spec/install/spec/deployments/0/spec")).isEqualTo(deployment.get("spec"));
    JsonNode pod = csv.at("/spec/install/spec/deployments/0/spec/template/spec");
    assertThat(pod.at("/containers/0/env").findValuesAsText("name")).contains("PLATFORM_OPENSHIFT");
    assertThat(pod.at("/securityContext").has("runAsUser")).isFalse();
    assertThat(csv.at("/metadata/annotations/containerImage").asText())
        .isEqualTo(pod.at("/containers/0/image").asText())
        .isEqualTo(OperandImages.projectImage());
  }

  @Test
  void everyRelatedImageIsOneTheOperatorRendersAndNoneIsMissing() {
    Set<String> related = new HashSet<>(csv.at("/spec/relatedImages").findValuesAsText("image"));
    Set<String> names = new HashSet<>(csv.at("/spec/relatedImages").findValuesAsText("name"));
    assertThat(names).as("one name per image").hasSize(related.size());
    Set<String> rendered = new TreeSet<>();
    for (var policy : OlmBundle.everyOperandPolicies()) {
      rendered.addAll(ImagesCommand.operandImages(policy, AGENTS, OlmBundle.OPENSHIFT));
    }
    rendered.add(OperandImages.projectImage());
    rendered.add(DriverChecks.CUDA_DEFAULT);
    rendered.add(ComputeDomainModel.NVIDIA_DRA_DRIVER_IMAGE); // each ComputeDomain's IMEX daemon
    assertThat(related).isEqualTo(rendered);
    // What the chart's defaults pull on OpenShift is among them ...
    assertThat(related)
        .containsAll(
            ImagesCommand.operandImages(
                ChartValues.load(List.of()).policy(), AGENTS, OlmBundle.OPENSHIFT));
    // ... and so are the images of operands the defaults leave off, in each sandbox mode.
    for (String operand :
        List.of("sandbox-device-plugin", "kata-sandbox-device-plugin", "dcgm", "gdrcopy")) {
      String image = OperandImages.nvidiaDefault(operand);
      assertThat(related)
          .as(operand)
          .anyMatch(r -> r.equals(image) || r.startsWith(image + "-" + OlmBundle.RHCOS));
    }
    assertThat(related)
        .anyMatch(r -> r.startsWith("nvcr.io/nvidia/driver:") && r.endsWith(OlmBundle.RHCOS));
  }

  @Test
  void theExamplesAreAcceptedByOurValidation() throws IOException {
    JsonNode examples = JSON.readTree(csv.at("/metadata/annotations/alm-examples").asText());
    List<String> kinds = new ArrayList<>();
    examples.forEach(e -> kinds.add(e.get("kind").asText()));
    assertThat(kinds).containsExactly("ClusterPolicy", "GPUCluster", "NVIDIADriver");
    for (JsonNode example : examples) {
      if (example.get("kind").asText().equals("ClusterPolicy")) {
        PolicyFile file = PolicyFile.parse(YAML.writeValueAsString(example), "alm-examples");
        assertThat(file.errors()).isEmpty();
        assertThat(file.valid()).isTrue();
        assertThat(ImagesCommand.operandImages(file.policy(), AGENTS)).isNotEmpty();
        assertThat(example.at("/spec/operator/use_ocp_driver_toolkit").asBoolean(true)).isTrue();
      }
    }
  }

  @Test
  void theCsvOwnsTheChartsCrdsAndSaysWhereAndOnWhatItRuns() throws IOException {
    Map<String, String> owned = new TreeMap<>();
    for (JsonNode crd : csv.at("/spec/customresourcedefinitions/owned")) {
      owned.put(crd.get("kind").asText(), crd.get("version").asText());
      assertThat(crd.get("description").asText()).as(crd.toString()).isNotBlank();
      assertThat(crd.get("name").asText()).endsWith(".nvidia.com");
    }
    assertThat(owned)
        .containsEntry("ClusterPolicy", "v1")
        .containsEntry("NVIDIADriver", "v1alpha1")
        .containsKey("GPUCluster");
    for (String crd : ChartFiles.CRDS) {
      assertThat(Files.readString(OlmBundle.DIR.resolve("manifests").resolve(crd)))
          .as(crd)
          .isEqualTo(ChartFiles.read("crds/" + crd));
    }
    Map<String, Boolean> modes = new TreeMap<>();
    csv.at("/spec/installModes")
        .forEach(m -> modes.put(m.get("type").asText(), m.get("supported").asBoolean()));
    assertThat(modes)
        .isEqualTo(
            Map.of(
                "OwnNamespace", true,
                "SingleNamespace", true,
                "MultiNamespace", false,
                "AllNamespaces", false));
    assertThat(csv.at("/spec/minKubeVersion").asText()).isEqualTo("1.29.0");
    assertThat(csv.at("/spec/version").asText()).isEqualTo(OperandImages.projectVersion());
    assertThat(csv.at("/metadata/annotations/operatorframework.io~1suggested-namespace").asText())
        .isEqualTo("nvidia-gpu-operator");
    assertThat(csv.at("/metadata/name").asText())
        .isEqualTo("gpu-operator-certified.v" + OperandImages.projectVersion().toLowerCase());
  }

  /**
   * The kinds OLM installs from a bundle's manifests/ (operator-registry's
   * pkg/lib/bundle/supported_resources.go); any other makes the bundle invalid.
   */
  private static final Set<String> OLM_SUPPORTED_KINDS =
      Set.of(
          "ClusterServiceVersion",
          "CustomResourceDefinition",
          "ClusterRole",
          "ClusterRoleBinding",
          "Service",
          "ServiceAccount",
          "Role",
          "RoleBinding",
          "PrometheusRule",
          "ServiceMonitor",
          "Secret",
          "ConfigMap",
          "PodDisruptionBudget",
          "PriorityClass",
          "VerticalPodAutoscaler",
          "ConsoleYAMLSample",
          "ConsoleQuickStart",
          "ConsoleCLIDownload",
          "ConsoleLink",
          "ConsolePlugin",
          "NetworkPolicy",
          "PodMonitor");

  @Test
  void everyManifestIsOneObjectOfAKindOlmInstalls() throws IOException {
    try (Stream<Path> files = Files.list(OlmBundle.DIR.resolve("manifests"))) {
      for (Path p : files.toList()) {
        String text = Files.readString(p);
        assertThat(text.lines().filter(l -> l.equals("---")).count()).as(p.toString()).isZero();
        assertThat(OLM_SUPPORTED_KINDS)
            .as(p.toString())
            .contains(YAML.readTree(text).get("kind").asText());
      }
    }
  }

  @Test
  void theOperandsRbacShipsBesideTheCsvBoundInTheSuggestedNamespace() throws IOException {
    long bindings = 0;
    try (Stream<Path> files = Files.list(OlmBundle.DIR.resolve("manifests"))) {
      for (Path p : files.toList()) {
        JsonNode object = YAML.readTree(p.toFile());
        assertThat(object.at("/metadata/namespace").isMissingNode()).as(p.toString()).isTrue();
        if (object.get("kind").asText().equals("ClusterRoleBinding")) {
          bindings++;
          object
              .get("subjects")
              .forEach(
                  s -> assertThat(s.get("namespace").asText()).isEqualTo("nvidia-gpu-operator"));
        }
        assertThat(object.at("/metadata/name").asText()).isNotEqualTo("gpu-operator-operator");
      }
    }
    assertThat(bindings).isPositive();
    long chartRoles =
        chart.stream()
            .filter(o -> o.getKind().equals("Role") || o.getKind().equals("ClusterRole"))
            .count();
    // The operands' Roles and ClusterRoles, all but the operator's own two (in the CSV).
    try (Stream<Path> files = Files.list(OlmBundle.DIR.resolve("manifests"))) {
      assertThat(
              files
                  .map(p -> p.getFileName().toString())
                  .filter(n -> n.endsWith("_role.yaml") || n.endsWith("_clusterrole.yaml"))
                  .count())
          .isEqualTo(chartRoles - 2);
    }
  }
}

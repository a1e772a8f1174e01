package io.gpuoperator.cli.chart;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.images.ImagesCommand;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.DriverToolkitFacts;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.driver.DriverChecks;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The OLM bundle ({@code deploy/olm}: {@code manifests/}, {@code metadata/annotations.yaml}, {@code
 * bundle.Dockerfile}) as renderings of the chart, so that the two installs cannot drift: the CSV's
 * Deployment, its clusterPermissions and permissions are the chart's operator Deployment,
 * ClusterRole and Role rendered with {@code platform.openshift=true} for the namespace the CSV
 * suggests; the CRDs are the files the api module's generator writes (those the chart copies to
 * {@code crds/}); the operands' RBAC, the metrics Service and the PodDisruptionBudget are the
 * chart's objects; the example ClusterPolicy is the one the chart creates; {@code relatedImages}
 * are the images the operator renders with every operand on. Written by {@link OlmBundleTest} with
 * {@code -Dchart.update=true}, as {@link ChartFiles}.
 */
final class OlmBundle {
  /** The bundle's folder, from the cli module's directory. */
  static final Path DIR = Path.of("..", "deploy", "olm").normalize();

  /** The package name, as the original's bundle names it. */
  static final String PACKAGE = "gpu-operator-certified";

  /** The namespace the CSV suggests (the original's) and the chart is rendered for. */
  static final String NAMESPACE = "nvidia-gpu-operator";

  static final String CHANNEL = "stable";
  static final String CSV_FILE = "manifests/" + PACKAGE + ".clusterserviceversion.yaml";
  static final String ANNOTATIONS_FILE = "metadata/annotations.yaml";
  static final String DOCKERFILE = "bundle.Dockerfile";

  /** The operator's own RBAC and account: OLM makes them from the CSV's install strategy. */
  private static final String OPERATOR = "gpu-operator";

  /**
   * The labels of bundle.Dockerfile and metadata/annotations.yaml (OLM reads either): registry+v1
   * content in manifests/ and metadata/, the package and its channels.
   */
  static final Map<String, String> ANNOTATIONS =
      annotations(
          "operators.operatorframework.io.bundle.mediatype.v1", "registry+v1",
          "operators.operatorframework.io.bundle.manifests.v1", "manifests/",
          "operators.operatorframework.io.bundle.metadata.v1", "metadata/",
          "operators.operatorframework.io.bundle.package.v1", PACKAGE,
          "operators.operatorframework.io.bundle.channels.v1", CHANNEL,
          "operators.operatorframework.io.bundle.channel.default.v1", CHANNEL,
          "operatorframework.io/suggested-namespace", NAMESPACE);

  /**
   * Values that switch on the operands the chart's defaults leave off, to collect every image: the
   * sandbox operands in each of their two modes (KubeVirt, Kata), standalone DCGM, the node-status
   * exporter, GDS and GDRCopy. The vGPU manager is left out: its image is one the user builds.
   */
  static final List<Map<String, Object>> EVERY_OPERAND =
      List.of(
          Map.of(
              "sandboxWorkloads.enabled", "true",
              "dcgm.enabled", "true",
              "nodeStatusExporter.enabled", "true",
              "gds.enabled", "true",
              "gdrcopy.enabled", "true"),
          Map.of("sandboxWorkloads.enabled", "true", "sandboxWorkloads.mode", "kata"));

  /**
   * The cluster the images are listed for: OpenShift (CRI-O, RHCOS nodes; the driver image's tag
   * carries the nodes' RHCOS version, {@value #RHCOS} here), NFD and the Prometheus operator
   * present. The Driver Toolkit's images come from the cluster's own ImageStream, not the bundle.
   */
  static final String RHCOS = "rhcos4.18";

  static final ClusterFacts OPENSHIFT =
      new ClusterFacts(
          ImagesCommand.FACTS.kubernetesVersion(),
          "cri-o",
          true,
          1,
          true,
          RHCOS,
          List.of(),
          Map.of(),
          ResourceApiVersion.V1,
          List.of(),
          true,
          DriverToolkitFacts.NONE);

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private OlmBundle() {}

  /** The chart's objects as the bundle takes them: OpenShift, the suggested namespace. */
  static List<GenericKubernetesResource> chart(Map<String, Object> set) {
    Map<String, Object> values = new LinkedHashMap<>(set);
    values.put("platform.openshift", "true");
    return HelmChart.objects(HelmChart.template(NAMESPACE, null, values));
  }

  /** Each file of the bundle (path relative to {@link #DIR}) with its content. */
  static Map<String, String> expected() {
    List<GenericKubernetesResource> chart = chart(Map.of());
    Map<String, String> out = new LinkedHashMap<>();
    for (String crd : ChartFiles.CRDS) {
      out.put("manifests/" + crd, ChartFiles.classpath("META-INF/fabric8/" + crd));
    }
    out.put(CSV_FILE, yaml(csv(chart)));
    for (GenericKubernetesResource object : extras(chart)) {
      out.put("manifests/" + fileName(object), yaml(object));
    }
    out.put(ANNOTATIONS_FILE, yaml(Map.of("annotations", ANNOTATIONS)));
    out.put(DOCKERFILE, dockerfile());
    return out;
  }

  /**
   * The chart's objects that go into manifests/ beside the CSV: everything but the operator's own
   * RBAC and Deployment (in the CSV), the CRDs (already there), the custom resources (the CSV's
   * examples) and kinds OLM does not install from a bundle (NFD's NodeFeatureRules: on OpenShift
   * the NFD operator provides them). Namespaced objects lose their namespace: OLM puts them in the
   * operator's.
   */
  static List<GenericKubernetesResource> extras(List<GenericKubernetesResource> chart) {
    Set<String> kinds =
        Set.of(
            "Role",
            "RoleBinding",
            "ClusterRole",
            "ClusterRoleBinding",
            "ServiceAccount",
            "Service",
            "PodDisruptionBudget",
            "ConfigMap");
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (GenericKubernetesResource object : chart) {
      boolean operatorOwn =
          OPERATOR.equals(object.getMetadata().getName())
              && Set.of(
                      "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "ServiceAccount")
                  .contains(object.getKind());
      if (!kinds.contains(object.getKind()) || operatorOwn) {
        continue;
      }
      GenericKubernetesResource copy =
          Serialization.unmarshal(Serialization.asJson(object), GenericKubernetesResource.class);
      copy.getMetadata().setNamespace(null);
      copy.getMetadata().setLabels(withoutHelmLabels(copy.getMetadata().getLabels()));
      out.add(copy);
    }
    return out;
  }

  /** Helm's bookkeeping labels dropped: they would claim a Helm release owns what OLM installed. */
  static Map<String, String> withoutHelmLabels(Map<String, String> labels) {
    if (labels == null) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>(labels);
    out.remove("helm.sh/chart");
    out.remove("app.kubernetes.io/managed-by");
    return out;
  }

  /** operator-sdk's file naming: {@code <name>_<group>_<version>_<kind>.yaml}, lower case. */
  static String fileName(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
    return (object.getMetadata().getName()
                + "_"
                + (group.isEmpty() ? "" : group + "_")
                + version
                + "_"
                + object.getKind())
            .toLowerCase(Locale.ROOT)
        + ".yaml";
  }

  /** The ClusterServiceVersion. */
  static Map<String, Object> csv(List<GenericKubernetesResource> chart) {
    String version = OperandImages.projectVersion();
    Deployment deployment =
        HelmChart.convert(HelmChart.find(chart, "Deployment", OPERATOR), Deployment.class);
    ClusterRole clusterRole =
        HelmChart.convert(HelmChart.find(chart, "ClusterRole", OPERATOR), ClusterRole.class);
    Role role = HelmChart.convert(HelmChart.find(chart, "Role", OPERATOR), Role.class);
    String operatorImage =
        deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();

    Map<String, Object> metadata = new LinkedHashMap<>();
    // metadata.name is a DNS subdomain (lower case); spec.version keeps the project's semver.
    metadata.put("name", PACKAGE + ".v" + version.toLowerCase(Locale.ROOT));
    metadata.put(
        "labels",
        map(
            "operatorframework.io/arch.amd64",
            "supported",
            "operatorframework.io/os.linux",
            "supported"));
    metadata.put(
        "annotations",
        map(
            "alm-examples", almExamples(chart),
            "capabilities", "Deep Insights",
            "categories", "AI/Machine Learning, OpenShift Optional",
            "containerImage", operatorImage,
            "description", "Automates the management and monitoring of NVIDIA GPUs.",
            "features.operators.openshift.io/disconnected", "true",
            "operatorframework.io/suggested-namespace", NAMESPACE,
            "repository", "https://github.com/gpu-operator-java/gpu-operator",
            "support", "gpu-operator-java"));

    Map<String, Object> install = new LinkedHashMap<>();
    install.put("strategy", "deployment");
    install.put(
        "spec",
        map(
            "clusterPermissions",
            List.of(map("serviceAccountName", OPERATOR, "rules", clusterRole.getRules())),
            "permissions",
            List.of(map("serviceAccountName", OPERATOR, "rules", role.getRules())),
            "deployments",
            List.of(
                map(
                    "name", OPERATOR,
                    "label", withoutHelmLabels(deployment.getMetadata().getLabels()),
                    "spec", deployment.getSpec()))));

    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("displayName", "GPU Operator (Java)");
    spec.put(
        "description",
        "A Java reimplementation of NVIDIA's GPU Operator: from one ClusterPolicy it deploys and"
            + " manages the driver (built with the Driver Toolkit on OpenShift), the container"
            + " toolkit, the device plugin or the DRA driver, feature discovery, the DCGM exporter,"
            + " the MIG manager and the validator on the GPU nodes, and the sandbox operands for"
            + " virtual machines.\n\nNode Feature Discovery must be installed first (on OpenShift:"
            + " its operator, with a NodeFeatureDiscovery instance).\n");
    spec.put("version", version);
    spec.put(
        "minKubeVersion",
        KubernetesVersion.MINIMUM.major() + "." + KubernetesVersion.MINIMUM.minor() + ".0");
    spec.put("maturity", "alpha");
    spec.put("provider", map("name", "gpu-operator-java"));
    spec.put("keywords", List.of("gpu", "nvidia", "cuda", "operator", "monitoring"));
    spec.put(
        "links",
        List.of(map("name", "Source", "url", "https://github.com/gpu-operator-java/gpu-operator")));
    spec.put(
        "maintainers",
        List.of(
            map(
                "name",
                "gpu-operator-java",
                "email",
                "gpu-operator-java@users.noreply.github.com")));
    spec.put(
        "installModes",
        List.of(
            map("type", "OwnNamespace", "supported", true),
            map("type", "SingleNamespace", "supported", true),
            map("type", "MultiNamespace", "supported", false),
            map("type", "AllNamespaces", "supported", false)));
    spec.put("install", install);
    spec.put("customresourcedefinitions", map("owned", ownedCrds()));
    spec.put("relatedImages", relatedImages(operatorImage));

    Map<String, Object> csv = new LinkedHashMap<>();
    csv.put("apiVersion", "operators.coreos.com/v1alpha1");
    csv.put("kind", "ClusterServiceVersion");
    csv.put("metadata", metadata);
    csv.put("spec", spec);
    return csv;
  }

  /** What each owned CRD is for, as the console shows it. */
  static final Map<String, String> CRD_DESCRIPTIONS =
      Map.of(
          "ClusterPolicy",
          "The GPU software stack of the cluster: which operands run on the GPU nodes and how"
              + " (one per cluster).",
          "NVIDIADriver",
          "A driver for the nodes it selects, managed apart from the ClusterPolicy when its"
              + " driver.useNvidiaDriverCRD is set.",
          "GPUCluster",
          "The Dynamic Resource Allocation GPU stack (the DRA driver and what it needs) without a"
              + " ClusterPolicy.",
          "ComputeDomain",
          "A set of nodes whose GPUs share IMEX channels for one multi-node workload (the DRA"
              + " driver's ComputeDomains).");

  /** One entry per CRD version served: name, kind, version, display name and description. */
  static List<Map<String, Object>> ownedCrds() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (CustomResourceDefinition crd : Crds.load()) {
      for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
        if (!Boolean.TRUE.equals(v.getServed())) {
          continue;
        }
        String kind = crd.getSpec().getNames().getKind();
        String description = CRD_DESCRIPTIONS.get(kind);
        if (description == null) {
          throw new IllegalStateException("OlmBundle.CRD_DESCRIPTIONS has no line for " + kind);
        }
        out.add(
            map(
                "name", crd.getMetadata().getName(),
                "kind", crd.getSpec().getNames().getKind(),
                "version", v.getName(),
                "displayName", crd.getSpec().getNames().getKind(),
                "description", description));
      }
    }
    return out;
  }

  /**
   * The example objects the console offers, as the original's: the ClusterPolicy the chart creates
   * and, from the chart with {@code driver.nvidiaDriverCRD.enabled} and {@code
   * gpuCluster.deployCR}, its GPUCluster and default NVIDIADriver (no ComputeDomain: a workload's
   * object, the original has none either).
   */
  static String almExamples(List<GenericKubernetesResource> chart) {
    List<Object> examples = new ArrayList<>();
    examples.add(example(HelmChart.find(chart, "ClusterPolicy", "cluster-policy")));
    List<GenericKubernetesResource> dra =
        chart(
            Map.of(
                "driver.nvidiaDriverCRD.enabled", "true",
                "gpuCluster.deployCR", "true",
                "clusterPolicy.deployCR", "false"));
    for (String kind : List.of("GPUCluster", "NVIDIADriver")) {
      examples.add(
          example(
              dra.stream()
                  .filter(o -> o.getKind().equals(kind))
                  .findFirst()
                  .orElseThrow(() -> new IllegalStateException("the chart rendered no " + kind))));
    }
    try {
      return JSON.writeValueAsString(examples);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Object> example(GenericKubernetesResource object) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("apiVersion", object.getApiVersion());
    out.put("kind", object.getKind());
    out.put("metadata", map("name", object.getMetadata().getName()));
    out.put("spec", object.getAdditionalProperties().get("spec"));
    return out;
  }

  /** The ClusterPolicies of the chart with every operand on (for the images). */
  static List<ClusterPolicy> everyOperandPolicies() {
    return EVERY_OPERAND.stream()
        .map(
            values ->
                HelmChart.convert(
                    HelmChart.find(chart(values), "ClusterPolicy", "cluster-policy"),
                    ClusterPolicy.class))
        .toList();
  }

  /**
   * Every image a cluster installed from the bundle pulls, for disconnected installs: the
   * operator's, each container image of every operand's DaemonSet with every operand on (named
   * {@code <operand>-<container>}, first use), the validator's CUDA workload, and NVIDIA's DRA
   * driver image, which each ComputeDomain's IMEX daemon runs.
   */
  static List<Map<String, Object>> relatedImages(String operatorImage) {
    Map<String, String> byImage = new LinkedHashMap<>();
    byImage.put(operatorImage, OPERATOR);
    OperatorConfig config =
        OperatorConfig.fromEnv(Map.of())
            .withAgents(
                OperatorConfig.subcommandsOf(GpuOperatorCommand.commandLine().getCommandSpec()));
    for (ClusterPolicy policy : everyOperandPolicies()) {
      for (RenderedOperand operand : Operands.renderAll(policy, OPENSHIFT, config)) {
        for (HasMetadata object : operand.objects()) {
          if (object instanceof DaemonSet ds) {
            var pod = ds.getSpec().getTemplate().getSpec();
            Stream.concat(
                    pod.getInitContainers() == null
                        ? Stream.empty()
                        : pod.getInitContainers().stream(),
                    pod.getContainers().stream())
                .forEach(
                    (Container c) ->
                        byImage.putIfAbsent(c.getImage(), operand.name() + "-" + c.getName()));
          }
        }
      }
    }
    byImage.putIfAbsent(DriverChecks.CUDA_DEFAULT, OperandImages.CUDA_WORKLOAD);
    // Each ComputeDomain's IMEX daemon (a DaemonSet the operator creates per domain).
    byImage.putIfAbsent(
        ComputeDomainModel.daemonImage(operatorImage), OperandImages.COMPUTE_DOMAIN_DAEMON);
    List<Map<String, Object>> out = new ArrayList<>();
    byImage.forEach((image, name) -> out.add(map("name", name, "image", image)));
    return out;
  }

  static String dockerfile() {
    StringBuilder out =
        new StringBuilder(
            "# The OLM bundle image (generated by OlmBundleTest: do not edit). Build from this"
                + " folder:\n"
                + "#   docker build -f bundle.Dockerfile -t <registry>/gpu-operator-bundle:<version>"
                + " .\n"
                + "FROM scratch\n\n");
    ANNOTATIONS.forEach(
        (k, v) -> out.append("LABEL ").append(k).append('=').append(v).append('\n'));
    out.append("\nCOPY manifests /manifests/\nCOPY metadata /metadata/\n");
    return out.toString();
  }

  private static String yaml(Object object) {
    String yaml = Serialization.asYaml(object);
    return yaml.startsWith("---\n") ? yaml.substring(4) : yaml;
  }

  private static Map<String, String> annotations(String... kv) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put(kv[i], kv[i + 1]);
    }
    return out;
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.put((String) kv[i], kv[i + 1]);
    }
    return out;
  }
}

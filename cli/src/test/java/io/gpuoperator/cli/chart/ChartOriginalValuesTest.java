package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.config.zap.TimeEncoding;
import io.gpuoperator.config.zap.ZapSettings;
import io.gpuoperator.operator.runtime.ZapLogging;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A platform team's values file for NVIDIA's chart installs as it is: every value path of the
 * original (v26.7, {@link OriginalValuePaths}) renders without a schema error, alone and all at
 * once; the values this chart implements work as there (ConfigMaps from {@code config.create},
 * {@code operator.env}, the logging flags, {@code gpuPodDeletion}, the NVIDIADriver and GPUCluster
 * resources); those it does not are listed on the ClusterPolicy for the operator's IgnoredFields
 * condition. The original's own values.yaml ({@link OriginalValuePaths#originalValuesFile}) is
 * rendered as it is too.
 */
class ChartOriginalValuesTest {
  static final String UNSUPPORTED =
      io.gpuoperator.operator.validation.IgnoredFields.UNSUPPORTED_VALUES;

  @Test
  void everyPathOfTheOriginalRendersAlone(@TempDir Path dir) throws IOException {
    List<OriginalValuePaths> rows = OriginalValuePaths.all();
    assertThat(rows).hasSizeGreaterThan(300);
    List<String> failures = new ArrayList<>();
    for (OriginalValuePaths row : rows) {
      Path values = dir.resolve("values.yaml");
      Files.writeString(values, OriginalValuePaths.valuesFile(List.of(row)));
      try {
        HelmChart.template(values, Map.of());
      } catch (RuntimeException e) {
        failures.add(row.path() + ": " + e.getMessage());
      }
    }
    assertThat(failures).as("paths of the original's chart that fail").isEmpty();
  }

  @Test
  void everyPathOfTheOriginalRendersAtOnce(@TempDir Path dir) throws IOException {
    Path values = dir.resolve("values.yaml");
    Files.writeString(values, OriginalValuePaths.valuesFile(OriginalValuePaths.all()));
    var objects = HelmChart.objects(HelmChart.template(values, Map.of()));
    ClusterPolicy policy = policy(objects);
    assertThat(policy.getSpec().driver.upgradePolicy.podDeletion.timeoutSeconds).isEqualTo(300);
    assertNfdDeployed(objects);
    assertThat(policy.getMetadata().getAnnotations().get(UNSUPPORTED))
        .doesNotContain("nfd.")
        .contains("nameOverride: ")
        .contains("\nfullnameOverride: ");
  }

  /** The original's values.yaml itself, where CI has it (the original's Go module). */
  @Test
  void theOriginalsValuesFileRendersAsItIs() {
    var objects =
        HelmChart.objects(HelmChart.template(OriginalValuePaths.originalValuesFile(), Map.of()));
    ClusterPolicy policy = policy(objects);
    assertNfdDeployed(objects);
    assertThat(policy.getSpec().driver.upgradePolicy.podDeletion).isNotNull();
  }

  @Test
  void aWrongTypeIsStillAnErrorNamingThePath() {
    assertThatThrownBy(() -> HelmChart.template(Map.of("driver.enabled", "yes")))
        .hasMessageContaining("driver")
        .hasMessageContaining("enabled");
    assertThatThrownBy(() -> HelmChart.template(Map.of("platform.openshift", "maybe")))
        .hasMessageContaining("openshift");
    assertThatThrownBy(() -> HelmChart.template(Map.of("devicePlugin.config.kreate", "true")))
        .hasMessageContaining("kreate");
  }

  /** The usual time-slicing set-up: the chart creates the ConfigMap the device plugin reads. */
  @Test
  void devicePluginConfigCreateMakesTheConfigMapThePolicyNames(@TempDir Path dir)
      throws IOException {
    Path values = dir.resolve("values.yaml");
    Files.writeString(
        values,
        """
        devicePlugin:
          config:
            name: time-slicing-config
            create: true
            default: any
            data:
              any: |-
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                      - name: nvidia.com/gpu
                        replicas: 4
        migManager:
          config:
            name: custom-mig-parted-config
            create: true
            default: all-disabled
            data:
              config.yaml: |-
                version: v1
                mig-configs:
                  all-disabled:
                    - devices: all
                      mig-enabled: false
        dcgmExporter:
          config:
            name: custom-dcgm-exporter-metrics
            create: true
            data: |-
              DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).
        """);
    var objects = HelmChart.objects(HelmChart.template(values, Map.of()));
    ConfigMap plugin = configMap(objects, "time-slicing-config");
    assertThat(plugin.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
    assertThat(plugin.getData().get("any")).contains("replicas: 4");
    assertThat(configMap(objects, "custom-mig-parted-config").getData().get("config.yaml"))
        .contains("all-disabled");
    assertThat(configMap(objects, "custom-dcgm-exporter-metrics").getData())
        .containsEntry(
            "dcgm-metrics.csv", "DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).");
    ClusterPolicy policy = policy(objects);
    assertThat(policy.getSpec().devicePlugin.config.name).isEqualTo("time-slicing-config");
    assertThat(policy.getSpec().devicePlugin.config.defaultEntry).isEqualTo("any");
    assertThat(policy.getSpec().migManager.config.name).isEqualTo("custom-mig-parted-config");
    assertThat(policy.getSpec().dcgmExporter.config.name).isEqualTo("custom-dcgm-exporter-metrics");
  }

  @Test
  void configCreateWithoutNameOrDataFailsAsTheOriginal() {
    assertThatThrownBy(
            () ->
                HelmChart.template(
                    Map.of("devicePlugin.config.create", "true", "devicePlugin.config.name", "x")))
        .hasMessageContaining("devicePlugin.config.data cannot be empty");
    assertThatThrownBy(
            () ->
                HelmChart.template(
                    Map.of(
                        "migManager.config.create", "true",
                        "migManager.config.data.config\\.yaml", "version: v1")))
        .hasMessageContaining("migManager.config.name cannot be empty");
  }

  @Test
  void operatorEnvReachesTheOperator() {
    var env =
        operatorEnv(
            Map.of(
                "operator.env[0].name", "HTTPS_PROXY",
                "operator.env[0].value", "http://proxy:3128"));
    assertThat(env).containsEntry("HTTPS_PROXY", "http://proxy:3128");
  }

  @Test
  void theOriginalsLoggingValuesBecomeZapFlagsTheOperatorAccepts() {
    // As the original's chart: the time encoding and level when set, --zap-devel alone.
    assertThat(operatorArgs(Map.of()))
        .containsExactly(
            "operator", "--leader-elect", "--zap-time-encoding=epoch", "--zap-log-level=info");
    assertThat(zap(operatorArgs(Map.of())))
        .isEqualTo(
            new ZapSettings(
                false,
                ZapSettings.Encoder.JSON,
                ZapSettings.INFO,
                ZapSettings.PANIC,
                TimeEncoding.EPOCH));
    List<String> verbose =
        operatorArgs(
            Map.of("operator.logging.level", 2, "operator.logging.timeEncoding", "rfc3339nano"));
    assertThat(verbose).contains("--zap-log-level=2", "--zap-time-encoding=rfc3339nano");
    assertThat(zap(verbose).level()).isEqualTo(-2);
    List<String> devel =
        operatorArgs(Map.of("operator.logging.develMode", true, "operator.logging.level", "error"));
    assertThat(devel).containsExactly("operator", "--leader-elect", "--zap-devel");
    assertThat(zap(devel).encoder()).isEqualTo(ZapSettings.Encoder.CONSOLE);
    assertThat(
            operatorArgs(Map.of("operator.logging.level", "", "operator.logging.timeEncoding", "")))
        .containsExactly("operator", "--leader-elect");
    assertThatThrownBy(() -> HelmChart.template(Map.of("operator.logging.level", "warn")))
        .hasMessageContaining("operator.logging.level");
  }

  /** The settings the operator takes from these arguments, parsed as the executable parses them. */
  private static ZapSettings zap(List<String> args) {
    return ZapLogging.options(
            GpuOperatorCommand.commandLine().parseArgs(args.toArray(String[]::new)))
        .settings();
  }

  private static List<String> operatorArgs(Map<String, Object> set) {
    var objects = HelmChart.objects(HelmChart.template(set));
    Deployment operator =
        HelmChart.convert(HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
    return operator.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
  }

  @Test
  void nvidiaDriverCrdRendersTheDefaultNvidiaDriver() {
    var objects =
        HelmChart.objects(
            HelmChart.template(
                Map.of(
                    "driver.nvidiaDriverCRD.enabled", "true",
                    "driver.upgradePolicy.gpuPodDeletion.timeoutSeconds", "120")));
    ClusterPolicy policy = policy(objects);
    assertThat(policy.getSpec().driver.useNvidiaDriverCRD).isTrue();
    NVIDIADriver driver =
        HelmChart.convert(HelmChart.find(objects, "NVIDIADriver", "default"), NVIDIADriver.class);
    assertThat(driver.getSpec().defaultDriver).isTrue();
    assertThat(driver.getSpec().version).isEqualTo(policy.getSpec().driver.version);
    assertThat(driver.getSpec().upgradePolicy.podDeletion.timeoutSeconds).isEqualTo(120);
    assertThat(
            HelmChart.objects(
                    HelmChart.template(
                        Map.of(
                            "driver.nvidiaDriverCRD.enabled", "true",
                            "driver.nvidiaDriverCRD.deployDefaultCR", "false")))
                .stream()
                .map(GenericKubernetesResource::getKind))
        .doesNotContain("NVIDIADriver");
  }

  @Test
  void gpuClusterDeployCrRendersTheGpuClusterInsteadOfThePolicy() {
    var objects =
        HelmChart.objects(
            HelmChart.template(
                Map.of(
                    "clusterPolicy.deployCR", "false",
                    "gpuCluster.deployCR", "true",
                    "driver.nvidiaDriverCRD.enabled", "true",
                    "draDriver.featureGates.MPSSupport", "true",
                    "draDriver.computeDomains.enabled", "false")));
    assertThat(objects.stream().map(GenericKubernetesResource::getKind))
        .doesNotContain("ClusterPolicy")
        .contains("GPUCluster", "NVIDIADriver");
    var cluster = HelmChart.find(objects, "GPUCluster", "gpu-cluster");
    @SuppressWarnings("unchecked")
    var spec = (Map<String, Map<String, Object>>) cluster.getAdditionalProperties().get("spec");
    assertThat(spec.get("draDriver"))
        .containsEntry("featureGates", Map.of("MPSSupport", true))
        .containsEntry("computeDomains", Map.of("enabled", false));
    assertThat(spec).containsKeys("dcgmExporter", "hostPaths", "daemonsets");
    assertThatThrownBy(
            () ->
                HelmChart.template(
                    Map.of(
                        "gpuCluster.deployCR", "true", "driver.nvidiaDriverCRD.enabled", "true")))
        .hasMessageContaining("cannot both be true");
  }

  @Test
  void unsupportedValuesAreListedOnThePolicy() {
    ClusterPolicy quiet = policy(HelmChart.objects(HelmChart.template(Map.of())));
    assertThat(quiet.getMetadata().getAnnotations()).isNullOrEmpty();
    ClusterPolicy policy =
        policy(
            HelmChart.objects(
                HelmChart.template(
                    Map.of(
                        "platform.openshift", "true",
                        "nfd.enabled", "true",
                        "nfd.nodefeaturerules", "true",
                        "operator.upgradeCRD", "false",
                        "operator.cleanupCRD", "true"))));
    assertThat(policy.getMetadata().getAnnotations().get(UNSUPPORTED).split("\n"))
        .extracting(l -> l.substring(0, l.indexOf(':')))
        .containsExactly("operator.cleanupCRD", "operator.upgradeCRD");
  }

  /**
   * platform.openshift is acted on: the operator is told (PLATFORM_OPENSHIFT, so the operands get
   * their SecurityContextConstraints) and runs as the user OpenShift's restricted-v2 SCC assigns,
   * which refuses a fixed one; elsewhere it keeps its fixed non-root user.
   */
  @Test
  void platformOpenShiftReachesTheOperator() {
    for (boolean openShift : List.of(false, true)) {
      var objects =
          HelmChart.objects(
              HelmChart.template(Map.of("platform.openshift", String.valueOf(openShift))));
      Deployment operator =
          HelmChart.convert(
              HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
      var pod = operator.getSpec().getTemplate().getSpec();
      var env = pod.getContainers().get(0).getEnv();
      assertThat(env.stream().filter(e -> e.getName().equals("PLATFORM_OPENSHIFT")))
          .as("PLATFORM_OPENSHIFT with platform.openshift=" + openShift)
          .hasSize(openShift ? 1 : 0)
          .allMatch(e -> e.getValue().equals("true"));
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(openShift ? null : 65532L);
      assertThat(policy(objects).getMetadata().getAnnotations()).isNullOrEmpty();
    }
  }

  /** NFD as the original ships it: off by default here, the subchart with nfd.enabled. */
  @Test
  void nfdEnabledDeploysTheSubchartAndNodeFeatureRulesNeedIt() {
    var plain = HelmChart.objects(HelmChart.template(Map.of()));
    assertThat(plain)
        .noneMatch(o -> o.getMetadata().getName().contains("node-feature-discovery"))
        .noneMatch(o -> o.getKind().equals("NodeFeatureRule"));

    var nfd = HelmChart.objects(HelmChart.template(Map.of("nfd.enabled", "true")));
    assertNfdDeployed(nfd);
    assertThat(nfd).noneMatch(o -> o.getKind().equals("NodeFeatureRule"));

    // Asked for without NFD (and no NFD CRD on the cluster): reported, not an unknown kind.
    var alone = HelmChart.objects(HelmChart.template(Map.of("nfd.nodefeaturerules", "true")));
    assertThat(alone).noneMatch(o -> o.getKind().equals("NodeFeatureRule"));
    assertThat(policy(alone).getMetadata().getAnnotations().get(UNSUPPORTED))
        .startsWith("nfd.nodefeaturerules: ");

    var both =
        HelmChart.objects(
            HelmChart.template(Map.of("nfd.enabled", "true", "nfd.nodefeaturerules", "true")));
    assertThat(policy(both).getMetadata().getAnnotations()).isNullOrEmpty();
    GenericKubernetesResource rule =
        HelmChart.find(both, "NodeFeatureRule", "nvidia-kernel-modules");
    Map<String, String> labelByModule = new java.util.TreeMap<>();
    for (Object r :
        (List<?>) ((Map<?, ?>) rule.getAdditionalProperties().get("spec")).get("rules")) {
      Map<?, ?> ruleMap = (Map<?, ?>) r;
      Map<?, ?> match = (Map<?, ?>) ((List<?>) ruleMap.get("matchFeatures")).get(0);
      assertThat(match.get("feature")).isEqualTo("kernel.loadedmodule");
      String module =
          (String) ((Map<?, ?>) match.get("matchExpressions")).keySet().iterator().next();
      Map<?, ?> labels = (Map<?, ?>) ruleMap.get("labels");
      assertThat(List.copyOf(labels.values())).isEqualTo(List.of("true"));
      labelByModule.put(module, (String) labels.keySet().iterator().next());
    }
    assertThat(labelByModule)
        .containsExactlyEntriesOf(
            new java.util.TreeMap<>(
                Map.of(
                    "gdrdrv", "nvidia.com/gdrcopy.capable",
                    "nvidia_fs", "nvidia.com/gds.capable",
                    "nvidia_peermem", "nvidia.com/peermem.capable")));
  }

  /**
   * The node-feature-discovery subchart rendered as the original configures it: master, worker and
   * gc; the worker on GPU nodes (tolerating nvidia.com/gpu) reporting PCI display and network
   * classes by vendor; the master taking nvidia.com labels.
   */
  private static void assertNfdDeployed(List<GenericKubernetesResource> objects) {
    String prefix = HelmChart.RELEASE + "-node-feature-discovery-";
    var worker =
        HelmChart.convert(
            HelmChart.find(objects, "DaemonSet", prefix + "worker"),
            io.fabric8.kubernetes.api.model.apps.DaemonSet.class);
    assertThat(worker.getSpec().getTemplate().getSpec().getTolerations())
        .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
    HelmChart.find(objects, "Deployment", prefix + "master");
    HelmChart.find(objects, "Deployment", prefix + "gc");
    ConfigMap workerConf =
        HelmChart.convert(
            HelmChart.find(objects, "ConfigMap", prefix + "worker-conf"), ConfigMap.class);
    assertThat(workerConf.getData().values().iterator().next())
        .contains("deviceClassWhitelist")
        .contains("\"0302\"")
        .contains("deviceLabelFields");
    ConfigMap masterConf =
        HelmChart.convert(
            HelmChart.find(objects, "ConfigMap", prefix + "master-conf"), ConfigMap.class);
    assertThat(masterConf.getData().values().iterator().next())
        .contains("extraLabelNs")
        .contains("nvidia.com");
  }

  private static Map<String, String> operatorEnv(Map<String, Object> set) {
    var objects = HelmChart.objects(HelmChart.template(set));
    Deployment operator =
        HelmChart.convert(HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
    var out = new java.util.LinkedHashMap<String, String>();
    operator
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getEnv()
        .forEach(e -> out.put(e.getName(), e.getValue()));
    return out;
  }

  private static ClusterPolicy policy(List<GenericKubernetesResource> objects) {
    return HelmChart.convert(
        HelmChart.find(objects, "ClusterPolicy", "cluster-policy"), ClusterPolicy.class);
  }

  private static ConfigMap configMap(List<GenericKubernetesResource> objects, String name) {
    return HelmChart.convert(HelmChart.find(objects, "ConfigMap", name), ConfigMap.class);
  }
}

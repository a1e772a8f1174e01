package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gpuoperator.api.v1.ClusterPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm lint} and {@code helm template} through helm-java: golden renderings for the default
 * values and for a values file written for NVIDIA's chart, unknown keys refused by name, the
 * registry, pull-secret and digest values. Regenerate the golden files with {@code
 * -Dchart.update=true}.
 */
class ChartTemplateTest {
  private static final Path GOLDEN = Path.of("src", "test", "resources", "chart");

  @Test
  void lintPasses() {
    var result = new Helm(ChartFiles.CHART).lint().strict().call();
    assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
  }

  @Test
  void defaultValuesRenderTheGoldenManifests() throws IOException {
    golden("default.golden.yaml", HelmChart.template(Map.of()));
  }

  /** A values file in the original chart's style (its keys, its layout) renders as recorded. */
  @Test
  void originalStyleValuesRenderTheGoldenManifests() throws IOException {
    String rendered = HelmChart.template(GOLDEN.resolve("original-values.yaml"), Map.of());
    golden("original-values.golden.yaml", rendered);
    ClusterPolicy policy =
        HelmChart.convert(
            HelmChart.find(HelmChart.objects(rendered), "ClusterPolicy", "cluster-policy"),
            ClusterPolicy.class);
    assertThat(policy.getSpec().driver.version).isEqualTo("580.95.05");
    assertThat(policy.getSpec().mig.strategy.name()).isEqualToIgnoringCase("mixed");
    assertThat(policy.getSpec().dcgmExporter.serviceMonitor.enabled).isTrue();
  }

  @Test
  void anUnknownTopLevelKeyFailsNamingIt() {
    assertThatThrownBy(() -> HelmChart.template(Map.of("nodeFeatureDiscovery.enabled", "true")))
        .hasMessageContaining("nodeFeatureDiscovery");
  }

  @Test
  void anUnknownNestedKeyFailsNamingIt(@TempDir Path dir) throws IOException {
    Path values = dir.resolve("values.yaml");
    Files.writeString(values, "driver:\n  nvidiaDriverCRDs:\n    enabled: true\n");
    assertThatThrownBy(() -> HelmChart.template(values, Map.of()))
        .hasMessageContaining("nvidiaDriverCRDs")
        .hasMessageContaining("driver");
  }

  /** One value moves every image to a mirror, keeping paths, names and tags. */
  @Test
  void imageRegistryMovesEveryImage() {
    var objects =
        HelmChart.objects(
            HelmChart.template(
                Map.of(
                    "global.imageRegistry", "mirror.local:5000",
                    "global.imagePullSecrets[0]", "mirror-pull")));
    Deployment operator =
        HelmChart.convert(HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
    var pod = operator.getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getImage())
        .isEqualTo(
            "mirror.local:5000/gpu-operator-java/gpu-operator:"
                + io.gpuoperator.api.OperandImages.projectVersion());
    assertThat(pod.getImagePullSecrets())
        .extracting(s -> s.getName())
        .containsExactly("mirror-pull");
    ClusterPolicy policy =
        HelmChart.convert(
            HelmChart.find(objects, "ClusterPolicy", "cluster-policy"), ClusterPolicy.class);
    assertThat(policy.getSpec().driver.repository).isEqualTo("mirror.local:5000/nvidia");
    assertThat(policy.getSpec().driver.manager.repository)
        .isEqualTo("mirror.local:5000/nvidia/cloud-native");
    assertThat(policy.getSpec().driver.imagePullSecrets).containsExactly("mirror-pull");
    assertThat(policy.getSpec().devicePlugin.repository)
        .isEqualTo("mirror.local:5000/gpu-operator-java");
  }

  @Test
  void aDigestPinsTheOperatorImage() {
    String digest = "sha256:" + "a".repeat(64);
    var objects = HelmChart.objects(HelmChart.template(Map.of("operator.version", digest)));
    Deployment operator =
        HelmChart.convert(HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
    assertThat(operator.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("ghcr.io/gpu-operator-java/gpu-operator@" + digest);
  }

  @Test
  void psaEnabledReachesThePolicy() {
    var objects = HelmChart.objects(HelmChart.template(Map.of("psa.enabled", "true")));
    ClusterPolicy policy =
        HelmChart.convert(
            HelmChart.find(objects, "ClusterPolicy", "cluster-policy"), ClusterPolicy.class);
    assertThat(policy.getSpec().psa.enabled).isTrue();
  }

  /** {@code operator.nodeAgents} turns node-agents mode on; by default the variable is absent. */
  @Test
  void nodeAgentsReachesTheOperatorsEnvironment() {
    for (boolean on : new boolean[] {false, true}) {
      var objects =
          HelmChart.objects(HelmChart.template(Map.of("operator.nodeAgents", String.valueOf(on))));
      Deployment operator =
          HelmChart.convert(
              HelmChart.find(objects, "Deployment", "gpu-operator"), Deployment.class);
      var env = operator.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv();
      if (on) {
        assertThat(env)
            .anySatisfy(
                e -> {
                  assertThat(e.getName()).isEqualTo("NODE_AGENTS");
                  assertThat(e.getValue()).isEqualTo("true");
                });
      } else {
        assertThat(env).noneMatch(e -> e.getName().equals("NODE_AGENTS"));
      }
    }
  }

  private static void golden(String name, String rendered) throws IOException {
    Path file = GOLDEN.resolve(name);
    if (ChartFilesTest.update()) {
      Files.writeString(file, rendered);
    }
    assertThat(Files.readString(file))
        .as("%s differs; if the change is intended, regenerate with -Dchart.update=true", file)
        .isEqualTo(rendered);
  }
}

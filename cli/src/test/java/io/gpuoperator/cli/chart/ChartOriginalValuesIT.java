package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.validation.IgnoredFields;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helm install} into a real API server with a values file that sets every value path of
 * NVIDIA's chart ({@link OriginalValuePaths}), and with the original's own values.yaml ({@link
 * OriginalValuePaths#originalValuesFile}): the release is deployed (the API server accepted every
 * object, the ClusterPolicy and the node-feature-discovery subchart included), and the policy lists
 * what is not supported.
 */
class ChartOriginalValuesIT {
  private static ControlPlane cp;

  @BeforeAll
  static void start() throws Exception {
    cp = ControlPlane.builder().start();
  }

  @AfterAll
  static void stop() {
    if (cp != null) {
      cp.close();
    }
  }

  @Test
  void everyPathAtOnceAndTheOriginalsValuesFileInstall(@TempDir Path dir) throws Exception {
    Path all = dir.resolve("all-paths.yaml");
    Files.writeString(all, OriginalValuePaths.valuesFile(OriginalValuePaths.all()));
    installAndUninstall(all);
    installAndUninstall(OriginalValuePaths.originalValuesFile());
  }

  private static void installAndUninstall(Path values) {
    var release =
        new Helm(ChartFiles.CHART)
            .install()
            .withName(HelmChart.RELEASE)
            .withNamespace(HelmChart.NAMESPACE)
            .createNamespace()
            .withValuesFile(values.toAbsolutePath())
            .withKubeConfig(cp.kubeconfig())
            .call();
    assertThat(release.getStatus()).as(values.toString()).isEqualTo("deployed");
    ClusterPolicy policy =
        cp.client().resources(ClusterPolicy.class).withName("cluster-policy").get();
    // The original's own file sets nothing unsupported: then the chart writes no annotation at all.
    String unsupported =
        policy.getMetadata().getAnnotations() == null
            ? null
            : policy.getMetadata().getAnnotations().get(IgnoredFields.UNSUPPORTED_VALUES);
    assertThat(unsupported == null ? "" : unsupported).doesNotContain("nfd.");
    // nfd.enabled (the original's default): the NFD subchart's CRDs and workloads went in too.
    assertThat(
            cp.client()
                .apps()
                .daemonSets()
                .inNamespace(HelmChart.NAMESPACE)
                .withName(HelmChart.RELEASE + "-node-feature-discovery-worker")
                .get())
        .isNotNull();
    assertThat(
            cp.client()
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("nodefeaturerules.nfd.k8s-sigs.io")
                .get())
        .isNotNull();
    // No kubelet runs NFD's post-delete clean-up Job here: helm would wait for it in vain.
    Helm.uninstall(HelmChart.RELEASE)
        .noHooks()
        .withNamespace(HelmChart.NAMESPACE)
        .withKubeConfig(cp.kubeconfig())
        .call();
  }
}

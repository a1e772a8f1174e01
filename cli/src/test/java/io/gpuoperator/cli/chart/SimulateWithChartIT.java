package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.gpuoperator.cli.simulate.Simulation;
import io.gpuoperator.cli.simulate.SimulationStatus;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code gpu-operator simulate --without-operator}, then {@code helm install} onto it, as a user
 * would: the simulation's CRDs and namespace do not collide with the chart's objects (the release
 * is deployed), the nodes' kubelets run the chart's operator pods, the chart's policy becomes
 * ready, and every endpoint the simulation lists (API server, each operator pod's metrics and
 * health, each GPU node's exporter) answers.
 */
class SimulateWithChartIT {
  private static final Path VALUES = Path.of("src/test/resources/chart/simulator-values.yaml");

  @Test
  void helmInstallOntoTheSimulatorReachesReadyAndEveryEndpointAnswers() throws Exception {
    List<NodeDescription> nodes =
        List.of(
            NodeDescription.gpuNode("h100-0", "H100-SXM5-80GB", 8),
            NodeDescription.cpuNode("cpu-0"));
    try (Simulation sim = Simulation.builder().nodes(nodes).withoutOperator(true).start()) {
      assertThat(sim.endpoints())
          .extracting(Map.Entry::getKey)
          .containsExactly("API server"); // no operator yet, no exporter yet

      var release =
          new Helm(ChartFiles.CHART)
              .install()
              .withName(HelmChart.RELEASE)
              .withNamespace(sim.namespace())
              .withValuesFile(VALUES.toAbsolutePath())
              .withKubeConfig(sim.controlPlane().kubeconfig())
              .call();
      assertThat(release.getStatus()).isEqualTo("deployed");

      SimulationStatus status = sim.awaitReady(Duration.ofMinutes(5), s -> {});
      assertThat(status.ready()).as(() -> String.join("\n", status.reasons())).isTrue();

      Map<String, String> endpoints =
          sim.endpoints().stream()
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      assertThat(endpoints.get("API server")).startsWith("https://127.0.0.1:");
      assertThat(endpoints.keySet())
          .filteredOn(k -> k.startsWith("operator metrics (pod gpu-operator-"))
          .hasSize(2);
      assertThat(endpoints.keySet())
          .filteredOn(k -> k.startsWith("operator health (pod gpu-operator-"))
          .hasSize(2);
      assertThat(endpoints).containsKey("exporter h100-0").doesNotContainKey("exporter cpu-0");

      HttpClient http = HttpClient.newHttpClient();
      StringBuilder operatorMetrics = new StringBuilder();
      for (var e : endpoints.entrySet()) {
        if (e.getKey().equals("API server")) {
          continue; // TLS with the cluster's own CA: the kubeconfig's business
        }
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create(e.getValue()))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(e.getKey() + " " + e.getValue()).isEqualTo(200);
        if (e.getKey().startsWith("exporter")) {
          assertThat(response.body()).contains("DCGM_FI_DEV_GPU_UTIL");
        } else if (e.getKey().startsWith("operator metrics")) {
          operatorMetrics.append(response.body());
        }
      }
      // The leader's reconciliations are counted (the standby serves its metrics too).
      assertThat(operatorMetrics).contains("gpu_operator_reconciliation_total");
    }
  }
}

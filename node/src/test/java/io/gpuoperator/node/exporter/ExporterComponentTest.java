package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exporter as a whole on 127.0.0.1: over HTTP, with the real pod-resources protocol, Debian's
 * promtool judging its output.
 */
class ExporterComponentTest {
  @TempDir Path dir;

  record Lint(int exitCode, String output) {}

  static Lint promtool(byte[] metrics) throws Exception {
    Path promtool = PrometheusBinaries.require("promtool");
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (var in = p.getOutputStream()) {
      in.write(metrics);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Lint(p.exitValue(), out);
  }

  /**
   * On an 8x H100 node with 7 MIG devices each and 60 pods, promtool's only findings are the two
   * that the DCGM exporter's own names carry and that dashboards depend on: the camelCase {@code
   * modelName} label and {@code _COUNTER} in {@code DCGM_FI_DEV_PCIE_REPLAY_COUNTER}. Without those
   * two names the output is clean: every family has HELP, counters follow the {@code _total} rule
   * (untyped under their DCGM names), and the exporter's own metrics use base units.
   */
  @Test
  void promtoolFindsOnlyTheDcgmNamesOnAnEightGpuNodeWithSevenMigDevicesEach() throws Exception {
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100-mig-single", Clock.systemUTC(), dir, 1000, Map.of())) {
      x.kubelet.set(x.pods(60));
      x.agent.exporter().collect();
      // The exporter's own loop (1 s) may publish a collection that started before the pods were
      // set after this one; the next collection has all 60.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  x.get("/metrics", null)
                          .body()
                          .lines()
                          .filter(l -> l.startsWith("DCGM_FI_DEV_FB_USED{"))
                          .count()
                      == 60);
      String body = x.get("/metrics", null).body();
      assertThat(body.lines().filter(l -> l.startsWith("DCGM_FI_DEV_FB_USED{"))).hasSize(60);
      assertThat(body)
          .contains("GPU_I_PROFILE=\"1g.10gb\"")
          .contains("pod=\"job-59\"")
          .contains("modelName=\"NVIDIA H100 80GB HBM3\"");
      String pcie = "DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'";
      Lint lint = promtool(body.getBytes(StandardCharsets.UTF_8));
      assertThat(lint.output().lines().distinct())
          .contains(pcie)
          .allMatch(
              l ->
                  l.equals(pcie)
                      || l.matches(
                          "DCGM_FI_\\w+ label names should be written in 'snake_case' not"
                              + " 'camelCase'"));
      String withoutModelName = body.replaceAll(",modelName=\"[^\"]*\"", "");
      assertThat(promtool(withoutModelName.getBytes(StandardCharsets.UTF_8)).output().strip())
          .isEqualTo(pcie);
      String withoutBoth =
          withoutModelName
              .lines()
              .filter(l -> !l.contains("DCGM_FI_DEV_PCIE_REPLAY_COUNTER"))
              .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
      Lint clean = promtool(withoutBoth.getBytes(StandardCharsets.UTF_8));
      assertThat(clean.output()).isEmpty();
      assertThat(clean.exitCode()).isZero();
    }
  }

  /**
   * The simulator's shared selector server answers as the JDK server does: the same statuses,
   * content types and encodings, the same families of metrics, the same health, index and 404.
   */
  @Test
  void theSharedSelectorServerAnswersAsTheJdkServerDoes() throws Exception {
    try (ExporterHarness jdk =
            new ExporterHarness("dgx-h100", Clock.systemUTC(), dir.resolve("jdk"), 1000, Map.of());
        ExporterHarness shared =
            new ExporterHarness(
                "dgx-h100", Clock.systemUTC(), dir.resolve("shared"), 1000, Map.of(), true)) {
      assertThat(shared.agent.port()).isNotEqualTo(jdk.agent.port());
      for (String accept :
          java.util.Arrays.asList(null, "application/openmetrics-text;version=1.0.0")) {
        var a = jdk.get("/metrics", accept);
        var b = shared.get("/metrics", accept);
        assertThat(b.statusCode()).isEqualTo(a.statusCode()).isEqualTo(200);
        assertThat(b.headers().firstValue("Content-Type"))
            .isEqualTo(a.headers().firstValue("Content-Type"));
        assertThat(families(b.body())).isEqualTo(families(a.body())).hasSizeGreaterThan(10);
      }
      for (String path : List.of("/health", "/", "/nope", "/metrics/x")) {
        var a = jdk.get(path, null);
        var b = shared.get(path, null);
        assertThat(b.statusCode()).as(path).isEqualTo(a.statusCode());
        assertThat(b.headers().firstValue("Content-Type"))
            .as(path)
            .isEqualTo(a.headers().firstValue("Content-Type"));
        if (!path.startsWith("/metrics")) {
          assertThat(b.body()).as(path).isEqualTo(a.body());
        }
      }
      var gzip =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(java.net.URI.create(shared.url("/metrics")))
                      .header("Accept-Encoding", "gzip")
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofByteArray());
      assertThat(gzip.headers().firstValue("Content-Encoding")).hasValue("gzip");
      String unzipped =
          new String(
              new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gzip.body()))
                  .readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(unzipped).contains("\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{");
    }
  }

  private static java.util.Set<String> families(String body) {
    return body.lines()
        .filter(l -> l.startsWith("# TYPE "))
        .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
  }

  @Test
  void servesOpenMetricsWhenAskedAndTheIndexAndHealth() throws Exception {
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100", Clock.systemUTC(), dir, 1000, Map.of())) {
      var om = x.get("/metrics", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
      assertThat(om.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/openmetrics-text");
      assertThat(om.body())
          .contains("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown")
          .contains("\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{")
          .contains("# TYPE gpu_exporter_collections counter")
          .contains("gpu_exporter_collections_total ")
          .endsWith("# EOF\n");
      var text = x.get("/metrics", "text/plain;version=0.0.4");
      assertThat(text.headers().firstValue("Content-Type").orElseThrow())
          .isEqualTo("text/plain; version=0.0.4; charset=utf-8");
      assertThat(text.body())
          .contains("\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{")
          .doesNotContain("# EOF");
      assertThat(x.get("/health", null).statusCode()).isEqualTo(200);
      assertThat(x.get("/", null).body()).contains("href=\"/metrics\"");
    }
  }

  @Test
  void podSeriesAppearAndDisappearWithinOneCollection() throws Exception {
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100-mig-single", Clock.systemUTC(), dir, 1000, Map.of())) {
      MetricsExporter e = x.agent.exporter();
      String uuid = x.gpus.migDevices(2).get(4).uuid();
      long before = collections(x);
      x.kubelet.set(
          PodResourcesStub.of(
              PodResourcesStub.pod(
                  "ml", "infer-0", "server", "nvidia.com/mig-1g.10gb", List.of(uuid))));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> x.get("/metrics", null).body().contains("pod=\"infer-0\""));
      // A collection that had already started may miss the change; the one after must see it.
      assertThat(collections(x) - before).isLessThanOrEqualTo(2);
      String line =
          x.get("/metrics", null)
              .body()
              .lines()
              .filter(l -> l.startsWith("DCGM_FI_DEV_FB_USED{") && l.contains("infer-0"))
              .findFirst()
              .orElseThrow();
      assertThat(line)
          .contains("GPU_I_PROFILE=\"1g.10gb\"")
          .contains("container=\"server\"")
          .contains("namespace=\"ml\"")
          .contains("gpu=\"2\"");
      long deleted = collections(x);
      x.kubelet.set(ListPodResourcesResponse.getDefaultInstance());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !x.get("/metrics", null).body().contains("infer-0"));
      assertThat(collections(x) - deleted).isLessThanOrEqualTo(2);
      assertThat(e.health().ok()).isTrue();
    }
  }

  private static long collections(ExporterHarness x) throws Exception {
    String name = "gpu_exporter_collections_total";
    return (long)
        ExporterHarness.sample(x.get("/metrics", null).body(), l -> l.startsWith(name + " "), name);
  }

  @Test
  void aFailingBackendTurnsHealthRedAndDropsEverySeries() throws Exception {
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100", Clock.systemUTC(), dir, 1000, Map.of())) {
      assertThat(x.get("/metrics", null).body()).contains("DCGM_FI_DEV_GPU_UTIL{");
      x.gpus.close(); // every call now fails, as when the driver goes away
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> x.get("/health", null).statusCode() == 503);
      assertThat(x.get("/health", null).body()).startsWith("reading the GPUs failed:");
      assertThat(x.get("/metrics", null).body())
          .doesNotContain("DCGM_FI_")
          .contains("gpu_exporter_collection_failures_total ");
    }
  }

  @Test
  void aHangingBackendTurnsHealthRedWithinTwoIntervals() throws Exception {
    SimulatedBackend sim = new SimulatedBackend(HardwareProfiles.node("l4-x1"), "n");
    CountDownLatch release = new CountDownLatch(1);
    var hang = new java.util.concurrent.atomic.AtomicBoolean();
    GpuBackend hanging =
        (GpuBackend)
            Proxy.newProxyInstance(
                GpuBackend.class.getClassLoader(),
                new Class<?>[] {GpuBackend.class},
                (proxy, m, args) -> {
                  if (hang.get() && m.getName().equals("telemetry")) {
                    release.await(); // the driver stops answering
                  }
                  try {
                    return m.invoke(sim, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    ExporterSettings s =
        ExporterSettings.fromEnv(
            Map.of(
                ExporterSettings.ENV_LISTEN, "127.0.0.1:0", ExporterSettings.ENV_INTERVAL, "1000"),
            "n");
    try (ExporterAgent agent = ExporterAgent.start(s, FieldList.builtIn(), hanging)) {
      MetricsExporter e = agent.exporter();
      assertThat(e.health().ok()).isTrue();
      hang.set(true);
      long hungAt = System.currentTimeMillis();
      await().atMost(Duration.ofSeconds(30)).until(() -> !e.health().ok());
      // Measured from the last collection that finished, which is at most one interval earlier.
      assertThat(System.currentTimeMillis() - hungAt).isLessThan(30_000);
      assertThat(e.health().message()).contains("the GPU backend stopped answering");
      assertThat(
              new String(
                  e.current().body(new Exposition.Variant(MetricsModel.Format.TEXT, false)),
                  StandardCharsets.UTF_8))
          .doesNotContain("DCGM_FI_");
    } finally {
      release.countDown();
      sim.close();
    }
  }
}

package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's, on 127.0.0.1) scraping the exporter on a simulated 8x H100 node with
 * a pod on each GPU: a pod's utilisation is queryable by its name, and every PromQL expression the
 * project ships (the Grafana dashboard, the alert rules, the prometheus-adapter rules) runs, and
 * each metric and label it names is found in what Prometheus scraped. The alerts the simulator can
 * provoke (XID, double-bit ECC, a GPU fallen off the bus) fire.
 */
class ExporterPrometheusIT {
  private static final Pattern SELECTOR =
      Pattern.compile("\\b(DCGM_FI_[A-Z0-9_]+|gpu_exporter_[a-z0-9_]+)(\\{[^}]*\\})?");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|on|without|ignoring)\\s*\\(([^)]*)\\)");
  private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(?:=~|!~|!=|=)\\s*\"");
  private static final Pattern TEMPLATE_LABEL =
      Pattern.compile("\\{\\{\\s*(\\w+)\\s*\\}\\}|\\$labels\\.(\\w+)");
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*),\\s*(\\w+)\\)");

  @TempDir Path dir;

  /** One shipped expression: where it is, the query, and the labels its text refers to. */
  record Expr(String where, String promql, Set<String> labels) {}

  /**
   * The simulator's form: the exporter on the JVM's shared selector server (one thread for every
   * exporter's port) is scraped by the real Prometheus as the JDK server is (its Go client keeps
   * the connection alive and asks for gzip).
   */
  @Test
  void prometheusScrapesTheExporterOnTheSharedSelectorServer() throws Exception {
    Clock fixed = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);
    try (ExporterHarness x = new ExporterHarness("dgx-h100", fixed, dir, 1000, Map.of(), true);
        PrometheusServer prom = new PrometheusServer(dir.resolve("prom"), x.address())) {
      x.kubelet.set(x.pods(8));
      await().atMost(Duration.ofSeconds(60)).until(prom::ready);
      long expected = x.gpus.telemetry(3).gpuUtilizationPercent();
      JsonNode r = podUtilisation(prom, "job-3");
      assertThat(r.path("metric").path("UUID").asText()).isEqualTo(x.gpus.device(3).uuid());
      assertThat(Double.parseDouble(r.path("value").get(1).asText())).isEqualTo(expected);
      // Scraped more than once over the kept-alive connection, every scrape up.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                JsonNode up = prom.query("count_over_time(up[1m])");
                return up.size() == 1
                    && Double.parseDouble(up.get(0).path("value").get(1).asText()) >= 2;
              });
      assertThat(prom.query("min_over_time(up[1m])").get(0).path("value").get(1).asText())
          .isEqualTo("1");
    }
  }

  @Test
  void prometheusScrapesTheExporterAndEveryShippedExpressionFindsItsData() throws Exception {
    Path root = Path.of(System.getProperty("gpu-operator.repo.root", ".."));
    Clock fixed = Clock.fixed(Instant.parse("2026-03-01T12:00:00Z"), ZoneOffset.UTC);
    try (ExporterHarness x = new ExporterHarness("dgx-h100", fixed, dir, 1000, Map.of());
        PrometheusServer prom = new PrometheusServer(dir.resolve("prom"), x.address())) {
      x.kubelet.set(x.pods(8));
      await().atMost(Duration.ofSeconds(60)).until(prom::ready);

      // The acceptance query.
      long expected = x.gpus.telemetry(3).gpuUtilizationPercent();
      JsonNode r = podUtilisation(prom, "job-3");
      assertThat(r.path("metric").path("gpu").asText()).isEqualTo("3");
      assertThat(r.path("metric").path("namespace").asText()).isEqualTo("team-0");
      assertThat(r.path("metric").path("container").asText()).isEqualTo("main");
      assertThat(r.path("metric").path("UUID").asText()).isEqualTo(x.gpus.device(3).uuid());
      assertThat(Double.parseDouble(r.path("value").get(1).asText())).isEqualTo(expected);

      List<Expr> exprs = new ArrayList<>();
      exprs.addAll(dashboard(root.resolve("deploy/monitoring/grafana-dashboard-gpu-fleet.json")));
      List<Expr> alerts =
          alerts(
              root.resolve(
                  "operator/src/main/resources/manifests/dcgm-exporter/0700_prometheusrule.yaml"));
      exprs.addAll(alerts);
      exprs.addAll(adapter(root.resolve("deploy/monitoring/prometheus-adapter-rules.yaml")));
      assertThat(exprs).hasSizeGreaterThan(25);
      promtoolCheckRules(root);

      // rate() and increase() need a few samples; then every expression must resolve.
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  prom.query("count_over_time(DCGM_FI_DEV_GPU_TEMP[1m])").get(0) != null
                      && Double.parseDouble(
                              prom.query("min(count_over_time(DCGM_FI_DEV_GPU_TEMP[1m]))")
                                  .get(0)
                                  .path("value")
                                  .get(1)
                                  .asText())
                          >= 5);
      for (Expr e : exprs) {
        checkFindsItsData(prom, e, alerts.contains(e));
      }

      // Faults the simulator can inject make their alerts fire.
      x.gpus.injectXid(1, 79);
      x.gpus.injectEccError(2, true);
      x.gpus.setLost(5, true);
      for (String alert : List.of("GPUXidError", "GPUEccDoubleBitErrors", "GPUFellOffTheBus")) {
        Expr e = alerts.stream().filter(a -> a.where().endsWith(alert)).findFirst().orElseThrow();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofSeconds(1))
            .alias(alert + " fires")
            .until(() -> prom.query(e.promql()).size() > 0);
      }
      JsonNode fell = prom.query(alertExpr(alerts, "GPUFellOffTheBus"));
      Set<String> gpus = new LinkedHashSet<>();
      fell.forEach(n -> gpus.add(n.path("metric").path("gpu").asText()));
      assertThat(gpus).containsExactlyInAnyOrder("1", "5");
    }
  }

  private static String alertExpr(List<Expr> alerts, String name) {
    return alerts.stream().filter(a -> a.where().endsWith(name)).findFirst().orElseThrow().promql();
  }

  /** Runs the expression, then each selector in it; every label it names must exist there. */
  private static void checkFindsItsData(PrometheusServer prom, Expr e, boolean threshold)
      throws Exception {
    Set<String> seen = new LinkedHashSet<>();
    Matcher m = SELECTOR.matcher(e.promql());
    int selectors = 0;
    while (m.find()) {
      selectors++;
      String selector = m.group(0);
      JsonNode series = prom.query(selector);
      assertThat(series.size())
          .as("%s: selector %s finds series (in %s)", e.where(), selector, e.promql())
          .isPositive();
      series.forEach(s -> s.path("metric").fieldNames().forEachRemaining(seen::add));
    }
    assertThat(selectors).as("%s names a metric: %s", e.where(), e.promql()).isPositive();
    assertThat(seen)
        .as("%s: labels it names exist on the scraped series (%s)", e.where(), e.promql())
        .containsAll(e.labels());
    JsonNode whole = prom.query(e.promql());
    if (!threshold) {
      assertThat(whole.size()).as("%s returns data: %s", e.where(), e.promql()).isPositive();
    }
  }

  private static Set<String> labels(String... texts) {
    Set<String> out = new LinkedHashSet<>();
    for (String text : texts) {
      if (text == null) {
        continue;
      }
      Matcher g = GROUPING.matcher(text);
      while (g.find()) {
        for (String l : g.group(1).split(",")) {
          if (!l.isBlank()) {
            out.add(l.strip());
          }
        }
      }
      Matcher m = MATCHER.matcher(text);
      while (m.find()) {
        out.add(m.group(1));
      }
      Matcher t = TEMPLATE_LABEL.matcher(text);
      while (t.find()) {
        out.add(t.group(1) != null ? t.group(1) : t.group(2));
      }
    }
    out.remove("__name__");
    return out;
  }

  /** Grafana's variables as "all": any node, any GPU, a 1m rate window. */
  private static String grafana(String expr) {
    return expr.replace("$__rate_interval", "1m").replace("$node", ".*").replace("$gpu", ".*");
  }

  private static List<Expr> dashboard(Path file) throws Exception {
    JsonNode d = new ObjectMapper().readTree(file.toFile());
    List<Expr> out = new ArrayList<>();
    for (JsonNode panel : d.path("panels")) {
      for (JsonNode t : panel.path("targets")) {
        String expr = t.path("expr").asText();
        out.add(
            new Expr(
                "dashboard panel '" + panel.path("title").asText() + "'",
                grafana(expr),
                labels(expr, t.path("legendFormat").asText(null))));
      }
    }
    for (JsonNode v : d.path("templating").path("list")) {
      String q = v.path("query").path("query").asText("");
      Matcher lv = LABEL_VALUES.matcher(q);
      if (lv.matches()) {
        // label_values(metric, label) as Grafana asks Prometheus for it.
        out.add(
            new Expr(
                "dashboard variable $" + v.path("name").asText(),
                grafana("count by (" + lv.group(2) + ") (" + lv.group(1) + ")"),
                labels(q, "by (" + lv.group(2) + ")")));
      }
    }
    return out;
  }

  private static List<Expr> alerts(Path file) throws Exception {
    JsonNode rule = new YAMLMapper().readTree(file.toFile());
    List<Expr> out = new ArrayList<>();
    for (JsonNode group : rule.path("spec").path("groups")) {
      for (JsonNode r : group.path("rules")) {
        String expr = r.path("expr").asText();
        out.add(
            new Expr(
                "alert " + r.path("alert").asText(),
                expr,
                labels(
                    expr,
                    r.path("annotations").path("summary").asText(null),
                    r.path("annotations").path("description").asText(null))));
      }
    }
    return out;
  }

  private static List<Expr> adapter(Path file) throws Exception {
    JsonNode config = new YAMLMapper().readTree(file.toFile());
    List<Expr> out = new ArrayList<>();
    for (JsonNode r : config.path("rules")) {
      String series = r.path("seriesQuery").asText();
      List<String> resources = new ArrayList<>();
      r.path("resources").path("overrides").fieldNames().forEachRemaining(resources::add);
      out.add(new Expr("adapter seriesQuery " + series, series, labels(series)));
      // Filled as prometheus-adapter does for one pod of the namespace team-0.
      String q =
          r.path("metricsQuery")
              .asText()
              .replace("<<.LabelMatchers>>", "namespace=\"team-0\",pod=~\"job-0|job-3\"")
              .replace("<<.GroupBy>>", String.join(",", resources));
      Set<String> names = labels(q);
      names.addAll(resources);
      out.add(new Expr("adapter metricsQuery for " + r.path("name").path("as").asText(), q, names));
    }
    return out;
  }

  /** promtool's own check of the alert rules (the PrometheusRule's groups as a rule file). */
  private void promtoolCheckRules(Path root) throws Exception {
    JsonNode rule =
        new YAMLMapper()
            .readTree(
                root.resolve(
                        "operator/src/main/resources/manifests/dcgm-exporter/0700_prometheusrule.yaml")
                    .toFile());
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("groups", rule.path("spec").path("groups"));
    Path rules = dir.resolve("rules.yml");
    new YAMLMapper().writeValue(rules.toFile(), file);
    Process p =
        new ProcessBuilder(
                PrometheusBinaries.require("promtool").toString(),
                "check",
                "rules",
                rules.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS");
    Files.deleteIfExists(rules);
  }

  /** The acceptance query, a pod's GPU utilisation by the pod's name, once Prometheus has it. */
  private static JsonNode podUtilisation(PrometheusServer prom, String pod) throws Exception {
    String query = "DCGM_FI_DEV_GPU_UTIL{pod=\"" + pod + "\"}";
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> prom.query(query).size() == 1);
    return prom.query(query).get(0);
  }
}

package io.gpuoperator.node.exporter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exporter on 8x H100 with 7 MIG devices each and 60 pods: {@code /metrics} latency with 1 and
 * 5 concurrent scrapers, CPU per collection, heap and RSS over a pod-churn run, and Debian's
 * prometheus-node-exporter (default collectors) scraped the same way for series per second. Not a
 * test: prints lines starting with BENCH for BENCHMARKS.md. Run with {@code
 * -Dtest=ExporterBenchmark -Dbenchmark=true} (scripts/bench-exporter.sh).
 */
class ExporterBenchmark {
  private static final int SCRAPES = 2000;
  @TempDir Path dir;

  @Test
  void numbers() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("benchmark"), "run with -Dbenchmark=true");
    List<String> parts =
        List.of(
            System.getProperty("benchmark.parts", "latency,collection,churn,node-exporter")
                .split(","));
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100-mig-single", Clock.systemUTC(), dir, 3_600_000, Map.of())) {
      x.kubelet.set(x.pods(60));
      MetricsExporter e = x.agent.exporter();
      e.collect();
      String body = get(HttpClient.newHttpClient(), x.url("/metrics"));
      long series = body.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
      System.out.printf("BENCH exporter: %d series, %d bytes per scrape%n", series, body.length());
      if (parts.contains("latency")) {
        scrapes("exporter", x.url("/metrics"), series);
        wrk("exporter", x.url("/metrics"), series);
      }
      if (parts.contains("collection")) {
        collectionCpu(e);
      }
    }
    if (parts.contains("churn")) {
      churn(Integer.getInteger("benchmark.churnMinutes", 5));
    }
    if (parts.contains("node-exporter")) {
      nodeExporter();
    }
  }

  /** CPU of one collection (read 8 GPUs + 56 MIG devices, pod-resources List, render). */
  private static void collectionCpu(MetricsExporter e) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 200; i++) {
      e.collect();
    }
    int n = 500;
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      e.collect();
    }
    double cpuMs = (threads.getCurrentThreadCpuTime() - cpu0) / 1e6 / n;
    double wallMs = (System.nanoTime() - wall0) / 1e6 / n;
    System.out.printf(
        "BENCH collection: %.2f ms CPU, %.2f ms wall each; at a 30 s interval %.5f core, at 1 s"
            + " %.4f core%n",
        cpuMs, wallMs, cpuMs / 30_000, cpuMs / 1_000);
  }

  /**
   * Memory under pod churn: the exporter's own collection loop at its shortest interval (1 s), a
   * scraper every second, and the pod set changing every second (40-60 pods, a tenth of them
   * replaced by pods with new names, as a Deployment's replacements have). Samples heap after GC,
   * VmRSS, live threads and the distinct pods in a scrape (which would grow if ended pods' series
   * were kept) six times over the run.
   */
  private void churn(int minutes) throws Exception {
    Path churnDir = Files.createDirectories(dir.resolve("churn"));
    try (ExporterHarness x =
        new ExporterHarness("dgx-h100-mig-single", Clock.systemUTC(), churnDir, 1_000, Map.of())) {
      HttpClient http = HttpClient.newHttpClient();
      java.util.Random random = new java.util.Random(42);
      List<String> names = new ArrayList<>();
      int next = 0;
      for (; next < 60; next++) {
        names.add("job-" + next);
      }
      x.kubelet.set(x.pods(names));
      Thread.sleep(2_000);
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
      long sampleEvery = TimeUnit.MINUTES.toNanos(minutes) / 6;
      long nextSample = System.nanoTime();
      List<String> samples = new ArrayList<>();
      int maxPodSeries = 0;
      long cpu0 = processCpuNanos();
      long wall0 = System.nanoTime();
      while (true) {
        long now = System.nanoTime();
        if (now >= nextSample || now >= end) {
          System.gc();
          String body = get(http, x.url("/metrics"));
          long pods =
              body.lines()
                  .filter(l -> !l.startsWith("#"))
                  .map(l -> l.replaceAll(".*pod=\"([^\"]*)\".*|.*", "$1"))
                  .filter(n -> !n.isEmpty())
                  .distinct()
                  .count();
          samples.add(
              String.format(
                  "%d:%02d: heap %d MiB, RSS %d MiB, %d threads, %d series of %d pods in the"
                      + " scrape",
                  (now - wall0) / 60_000_000_000L,
                  (now - wall0) / 1_000_000_000L % 60,
                  usedHeap() >> 20,
                  rssKb() >> 10,
                  Thread.activeCount(),
                  body.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count(),
                  pods));
          nextSample += sampleEvery;
          if (now >= end) {
            break;
          }
        }
        // A tenth of the pods end and new ones start; the count wanders between 40 and 60.
        for (int i = 0; i < names.size(); i++) {
          if (random.nextInt(10) == 0) {
            names.set(i, "job-" + next++);
          }
        }
        int target = 40 + random.nextInt(21);
        while (names.size() > target) {
          names.remove(names.size() - 1);
        }
        while (names.size() < target) {
          names.add("job-" + next++);
        }
        x.kubelet.set(x.pods(names));
        String body = get(http, x.url("/metrics"));
        maxPodSeries =
            Math.max(maxPodSeries, (int) body.lines().filter(l -> l.contains("pod=\"")).count());
        Thread.sleep(1_000);
      }
      double cores = (processCpuNanos() - cpu0) / (double) (System.nanoTime() - wall0);
      String last = get(http, x.url("/metrics"));
      samples.add(
          "exporter counters at the end: "
              + last.lines()
                  .filter(
                      l ->
                          l.startsWith("gpu_exporter_collections")
                              || l.startsWith("gpu_exporter_pod_resources_failures")
                              || l.startsWith("gpu_exporter_collection_failures"))
                  .collect(java.util.stream.Collectors.joining(", ")));
      System.out.printf(
          "BENCH churn: %d minutes, collections every 1 s, a scrape every second, %d pods started"
              + " in all, at most %d series with a pod label; the JVM used %.4f core (exporter,"
              + " pod-resources server and scraper); %s%n",
          minutes, next, maxPodSeries, cores, String.join("; ", samples));
    }
  }

  private void nodeExporter() throws Exception {
    Path bin = PrometheusBinaries.require("prometheus-node-exporter");
    int port;
    try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Process p =
        new ProcessBuilder(
                bin.toString(),
                "--web.listen-address=127.0.0.1:" + port,
                "--no-collector.systemd",
                "--log.level=error")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("node-exporter.log").toFile())
            .start();
    try {
      String url = "http://127.0.0.1:" + port + "/metrics";
      HttpClient http = HttpClient.newHttpClient();
      String body = null;
      for (int i = 0; i < 100 && body == null; i++) {
        try {
          body = get(http, url);
        } catch (java.io.IOException e) {
          Thread.sleep(100);
        }
      }
      long series = body.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
      System.out.printf(
          "BENCH node-exporter: %d series, %d bytes per scrape%n", series, body.length());
      scrapes("node-exporter", url, series);
      wrk("node-exporter", url, series);
    } finally {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The same latencies measured from another process: Debian's {@code wrk} (C, one connection per
   * scraper, 10 s each), so the server's JVM does none of the scrapers' work and collects none of
   * their garbage. Skipped with a note when wrk is not installed (scripts/bench-exporter.sh
   * installs it).
   */
  private void wrk(String what, String url, long series) throws Exception {
    Path wrk = Path.of("/usr/bin/wrk");
    if (!Files.isExecutable(wrk)) {
      System.out.println("BENCH " + what + " wrk: not installed (apt-get install wrk)");
      return;
    }
    for (int scrapers : new int[] {1, 5}) {
      Path out = dir.resolve("wrk-" + what + "-" + scrapers + ".txt");
      Process p =
          new ProcessBuilder(
                  wrk.toString(), "-t" + scrapers, "-c" + scrapers, "-d10s", "--latency", url)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("wrk did not finish in 60 s");
      }
      String text = Files.readString(out);
      double rps = Double.parseDouble(text.replaceAll("(?s).*Requests/sec:\\s*([0-9.]+).*", "$1"));
      System.out.printf(
          "BENCH %s scrape (wrk, another process), %d scraper(s): p50 %s, p90 %s, p99 %s,"
              + " %.0f scrapes/s, %.0f series/s%n",
          what,
          scrapers,
          percentile(text, "50%"),
          percentile(text, "90%"),
          percentile(text, "99%"),
          rps,
          rps * series);
    }
  }

  private static String percentile(String wrkOutput, String which) {
    return wrkOutput
        .lines()
        .map(String::trim)
        .filter(l -> l.startsWith(which + " "))
        .map(l -> l.substring(which.length()).trim())
        .findFirst()
        .orElse("?");
  }

  /**
   * Scrape latency with 1 and 5 concurrent scrapers, twice: back to back (a saturation test: the
   * scrapers and the server share the 2 cores, so it measures throughput more than latency), and
   * paced, each scraper starting a scrape every 20 ms (still hundreds of times a Prometheus
   * server's rate, but the latency is the scrape's own and not the queue behind the others').
   */
  private static void scrapes(String what, String url, long series) throws Exception {
    scrapes(what, url, series, 0);
    scrapes(what, url, series, 20);
  }

  private static void scrapes(String what, String url, long series, long paceMs) throws Exception {
    for (int scrapers : new int[] {1, 5}) {
      HttpClient http = HttpClient.newHttpClient();
      for (int i = 0; i < 200; i++) {
        get(http, url);
      }
      ExecutorService pool = Executors.newFixedThreadPool(scrapers);
      List<Future<long[]>> results = new ArrayList<>();
      long start = System.nanoTime();
      for (int s = 0; s < scrapers; s++) {
        results.add(
            pool.submit(
                () -> {
                  long[] t = new long[(paceMs == 0 ? SCRAPES : SCRAPES / 2) / scrapers];
                  long next = System.nanoTime();
                  for (int i = 0; i < t.length; i++) {
                    if (paceMs > 0) {
                      next += paceMs * 1_000_000;
                      long wait = next - System.nanoTime();
                      if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                      }
                    }
                    long t0 = System.nanoTime();
                    getBytes(http, url);
                    t[i] = System.nanoTime() - t0;
                  }
                  return t;
                }));
      }
      List<Long> all = new ArrayList<>();
      for (Future<long[]> f : results) {
        for (long t : f.get()) {
          all.add(t);
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      pool.shutdown();
      all.sort(null);
      System.out.printf(
          "BENCH %s scrape, %s, %d scraper(s): p50 %.2f ms, p99 %.2f ms, %.0f scrapes/s, %.0f"
              + " series/s%n",
          what,
          paceMs == 0 ? "back to back" : "every " + paceMs + " ms per scraper",
          scrapers,
          all.get(all.size() / 2) / 1e6,
          all.get(all.size() * 99 / 100) / 1e6,
          all.size() / seconds,
          all.size() * series / seconds);
    }
  }

  /**
   * A scrape that only reads the bytes: the scrapers share the 2 cores with the server, so they do
   * not decode the 360 KB body into a String (a Prometheus server does its parsing elsewhere).
   */
  private static int getBytes(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(),
            HttpResponse.BodyHandlers.ofByteArray())
        .body()
        .length;
  }

  private static String get(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  private static long rssKb() throws Exception {
    for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (l.startsWith("VmRSS:")) {
        return Long.parseLong(l.replaceAll("\\D+", ""));
      }
    }
    return -1;
  }
}

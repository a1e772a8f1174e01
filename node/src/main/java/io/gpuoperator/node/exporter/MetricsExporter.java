package io.gpuoperator.node.exporter;

import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.node.agent.AgentLane;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exporter's collection loop and what scrapes see. Every interval it reads the GPUs and asks
 * the kubelet which pods hold which devices, then publishes one {@link Exposition}; a scrape only
 * hands out the latest one (no GPU, kubelet or API-server call on the scrape path).
 *
 * <p>Failure semantics: a collection whose backend fails publishes no GPU series (stale values are
 * dropped, never repeated), and a published collection older than two intervals (a backend that
 * hangs) is not served either; {@link #health()} is unhealthy in both cases, so {@code /health}
 * fails within two intervals of the backend going away. A failed pod-resources call leaves the
 * series without pod labels for that collection and is counted. The exporter's own metrics ({@code
 * gpu_exporter_*}) are always served.
 */
public final class MetricsExporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsExporter.class);

  /** Whether the exporter is healthy, with a sentence saying why not. */
  public record Health(boolean ok, String message) {}

  private final GpuReader reader;
  private final Supplier<ListPodResourcesResponse> pods;
  private final PodAttribution attribution;
  private final MetricsModel model;
  private final Duration interval;
  private final Clock clock;
  private final int skippedFields;
  private final UnavailableFields unavailable;
  private volatile List<String> lastGaps = List.of();
  private final AtomicLong collections = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong podFailures = new AtomicLong();
  private volatile double lastDurationSeconds;
  private volatile Published published;
  private volatile String lastError = "no collection yet";
  private volatile String lastPodError;
  private AgentLane loop;

  private record Published(Exposition exposition, long atMillis) {}

  /**
   * @param pods the kubelet's pod resources, or null without Kubernetes mapping ({@code -k} off)
   * @param skippedFields CSV fields left out, for the exporter's own gauge
   * @param unavailable which listed fields a GPU cannot give, logged when they change and served
   */
  public MetricsExporter(
      GpuReader reader,
      Supplier<ListPodResourcesResponse> pods,
      PodAttribution attribution,
      MetricsModel model,
      Duration interval,
      Clock clock,
      int skippedFields,
      UnavailableFields unavailable) {
    this.reader = reader;
    this.unavailable = unavailable;
    this.pods = pods;
    this.attribution = attribution;
    this.model = model;
    this.interval = interval;
    this.clock = clock;
    this.skippedFields = skippedFields;
  }

  /**
   * Collects now, then every interval (from the end of one collection to the start of the next) on
   * a lane of the shared {@link io.gpuoperator.node.agent.AgentThreads}.
   */
  public MetricsExporter start() {
    loop = new AgentLane("exporter-collect");
    loop.scheduleWithFixedDelay(this::collectSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void collectSafely() {
    try {
      collect();
    } catch (RuntimeException e) {
      LOG.error("collection failed unexpectedly", e);
    }
  }

  /** One collection: read, attribute, publish. Returns whether the GPU reading succeeded. */
  public boolean collect() {
    long start = System.nanoTime();
    collections.incrementAndGet();
    NodeReading reading;
    try {
      reading = reader.read();
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      if (published != null || !lastError.endsWith(String.valueOf(e.getMessage()))) {
        LOG.warn(
            "reading the GPUs failed; serving no GPU series until it works again: {}",
            e.getMessage());
      }
      lastError = "reading the GPUs failed: " + e.getMessage();
      published = null;
      lastDurationSeconds = (System.nanoTime() - start) / 1e9;
      return false;
    }
    Map<DeviceKey, List<PodRef>> holders = Map.of();
    if (pods != null) {
      try {
        holders = attribution.holders(pods.get(), reading.deviceIds());
        if (lastPodError != null) {
          LOG.info("pod-resources answers again; pod labels are back");
          lastPodError = null;
        }
      } catch (RuntimeException e) {
        podFailures.incrementAndGet();
        if (!String.valueOf(e.getMessage()).equals(lastPodError)) {
          LOG.warn(
              "pod-resources List failed; series carry no pod labels until it works: {}",
              e.getMessage());
        }
        lastPodError = String.valueOf(e.getMessage());
      }
    }
    List<UnavailableFields.Gap> gaps = unavailable.of(reading);
    report(gaps);
    Map<DeviceKey, List<PodRef>> h = holders;
    NodeReading r = reading;
    int series = model.seriesPerFamily(r, h);
    long now = clock.millis();
    lastDurationSeconds = (System.nanoTime() - start) / 1e9;
    Exposition exposition =
        new Exposition(
            format -> {
              List<MetricSnapshot> all = new ArrayList<>(model.families(r, h));
              all.addAll(selfFamilies(series, now));
              all.add(UnavailableFields.family(gaps));
              return MetricsModel.snapshots(all);
            },
            series);
    // The classic text is what Prometheus asks for by default: render it here, off the scrape path.
    exposition.body(new Exposition.Variant(MetricsModel.Format.TEXT, false));
    if (!r.failedGpus().isEmpty()) {
      LOG.debug("GPUs left out of this collection: {}", r.failedGpus());
    }
    published = new Published(exposition, now);
    return true;
  }

  /**
   * Logs which listed fields the GPUs cannot give: at the first collection (start-up) and whenever
   * that changes (a GPU gone, MIG mode switched), not every interval.
   */
  private void report(List<UnavailableFields.Gap> gaps) {
    List<String> sentences = UnavailableFields.sentences(gaps);
    if (sentences.equals(lastGaps)) {
      return;
    }
    for (String s : sentences) {
      if (!lastGaps.contains(s)) {
        LOG.warn("no series for: {}", s);
      }
    }
    if (sentences.isEmpty()) {
      LOG.info("every listed field is given by every GPU again");
    }
    lastGaps = List.copyOf(sentences);
  }

  /** The latest collection's sentences on the fields a GPU cannot give (what was logged). */
  public List<String> unavailableFields() {
    return lastGaps;
  }

  /**
   * What a scrape serves now: the latest collection while it is fresh, else the exporter's own
   * metrics alone.
   */
  public Exposition current() {
    Published p = published;
    if (p != null && clock.millis() - p.atMillis() <= staleAfter().toMillis()) {
      return p.exposition();
    }
    long last = p == null ? 0 : p.atMillis();
    return new Exposition(format -> MetricsModel.snapshots(selfFamilies(0, last)), 0);
  }

  /** Healthy while the latest collection succeeded and is at most two intervals old. */
  public Health health() {
    Published p = published;
    if (p == null) {
      return new Health(false, lastError);
    }
    long age = clock.millis() - p.atMillis();
    if (age > staleAfter().toMillis()) {
      return new Health(
          false,
          "no collection finished for "
              + age / 1000
              + " s (interval "
              + interval.toMillis()
              + " ms): the GPU backend stopped answering");
    }
    return new Health(true, "OK");
  }

  private Duration staleAfter() {
    return interval.multipliedBy(2);
  }

  private List<MetricSnapshot> selfFamilies(int series, long lastSuccessMillis) {
    List<MetricSnapshot> out = new ArrayList<>();
    out.add(counter("gpu_exporter_collections", "Collections run.", collections.get()));
    out.add(
        counter(
            "gpu_exporter_collection_failures",
            "Collections whose GPU reading failed (their GPU series are not served).",
            failures.get()));
    out.add(
        counter(
            "gpu_exporter_pod_resources_failures",
            "Failed pod-resources List calls (series served without pod labels).",
            podFailures.get()));
    out.add(
        gauge(
            "gpu_exporter_collection_duration_seconds",
            "How long the latest collection took.",
            lastDurationSeconds));
    out.add(
        gauge(
            "gpu_exporter_last_collection_timestamp_seconds",
            "When the latest successful collection finished (0: none served).",
            lastSuccessMillis / 1000.0));
    out.add(gauge("gpu_exporter_series", "GPU series per metric family served.", series));
    out.add(
        gauge(
            "gpu_exporter_skipped_fields",
            "Fields of the counters file this exporter cannot read (listed at start-up).",
            skippedFields));
    return out;
  }

  private static MetricSnapshot counter(String name, String help, double value) {
    return CounterSnapshot.builder()
        .name(name)
        .help(help)
        .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build())
        .build();
  }

  private static MetricSnapshot gauge(String name, String help, double value) {
    return GaugeSnapshot.builder()
        .name(name)
        .help(help)
        .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build())
        .build();
  }

  public Duration interval() {
    return interval;
  }

  @Override
  public void close() {
    if (loop != null) {
      loop.close();
    }
  }
}

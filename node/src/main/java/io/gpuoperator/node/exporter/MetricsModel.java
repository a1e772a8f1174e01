package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.Telemetry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns one {@link NodeReading} and the pods holding its devices into metric families with the DCGM
 * exporter's names and labels. A pure function, so every naming rule is tested without a GPU.
 *
 * <p>Series labels: {@code gpu}, {@code UUID}, {@code pci_bus_id}, {@code device}, {@code
 * modelName}, {@code Hostname}, for a GPU instance {@code GPU_I_PROFILE} and {@code GPU_I_ID}, the
 * CSV's label fields ({@code DCGM_FI_DRIVER_VERSION}), and for a held device {@code pod}, {@code
 * namespace}, {@code container} (and {@code vgpu} for a shared replica): one series per holder, so
 * each pod sharing a GPU gets its own.
 *
 * <p>Counters: the fields the CSV types {@code counter} are exposed untyped ({@code unknown} in
 * OpenMetrics) under their DCGM names, in both formats. Prometheus asks for OpenMetrics first, and
 * there a counter's samples must be named {@code <name>_total}: typed as counters, {@code
 * DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION} would reach Prometheus as {@code
 * DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total} and every dashboard and alert written for the DCGM
 * exporter would find nothing. PromQL's {@code rate()} and {@code increase()} treat untyped series
 * alike, and promtool's {@code _total} rule does not apply to them. The exporter's own counters
 * ({@code gpu_exporter_*_total}) are real counters.
 */
public final class MetricsModel {
  /** An exposition format. */
  public enum Format {
    TEXT,
    OPENMETRICS
  }

  /**
   * Naming options.
   *
   * @param hostname the {@code Hostname} label's value, or null to leave the label out ({@code
   *     --no-hostname})
   */
  public record Options(String hostname) {}

  private final FieldList fields;
  private final Options options;

  public MetricsModel(FieldList fields, Options options) {
    this.fields = fields;
    this.options = options;
  }

  /** One series' identity: its labels and the entity its values come from. */
  private record Series(Labels labels, NodeReading.Entity entity) {}

  /** The DCGM families of a reading; {@code holders} is empty without Kubernetes mapping. */
  public List<MetricSnapshot> families(NodeReading reading, Map<DeviceKey, List<PodRef>> holders) {
    List<Series> series = series(reading, holders);
    List<MetricSnapshot> out = new ArrayList<>();
    for (FieldList.Metric m : fields.metrics()) {
      List<Point> points = new ArrayList<>(series.size());
      for (Series s : series) {
        double v = value(m.name(), s.entity());
        if (!Double.isNaN(v)) {
          points.add(new Point(s.labels(), v));
        }
      }
      out.add(m.type() == FieldList.Type.COUNTER ? untyped(m, points) : gauge(m, points));
    }
    return out;
  }

  /** One sample of a family. */
  private record Point(Labels labels, double value) {}

  private static MetricSnapshot gauge(FieldList.Metric m, List<Point> points) {
    var b = GaugeSnapshot.builder().name(m.name()).help(m.help());
    for (Point p : points) {
      b.dataPoint(
          GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(p.labels())
              .value(p.value())
              .build());
    }
    return b.build();
  }

  private static MetricSnapshot untyped(FieldList.Metric m, List<Point> points) {
    var b = UnknownSnapshot.builder().name(m.name()).help(m.help());
    for (Point p : points) {
      b.dataPoint(
          UnknownSnapshot.UnknownDataPointSnapshot.builder()
              .labels(p.labels())
              .value(p.value())
              .build());
    }
    return b.build();
  }

  /** Number of series one family has at most for this reading (one per entity and holder). */
  public int seriesPerFamily(NodeReading reading, Map<DeviceKey, List<PodRef>> holders) {
    return series(reading, holders).size();
  }

  /** Wraps families for a writer. */
  public static MetricSnapshots snapshots(List<MetricSnapshot> families) {
    return new MetricSnapshots(families);
  }

  private List<Series> series(NodeReading reading, Map<DeviceKey, List<PodRef>> holders) {
    List<Series> out = new ArrayList<>();
    for (NodeReading.Entity e : reading.entities()) {
      List<String> names = new ArrayList<>();
      List<String> values = new ArrayList<>();
      put(names, values, "gpu", Integer.toString(e.gpu().index()));
      put(names, values, "UUID", e.gpu().uuid());
      put(names, values, "pci_bus_id", e.gpu().pciBusId());
      put(names, values, "device", "nvidia" + e.gpu().minor());
      put(names, values, "modelName", e.gpu().name());
      if (options.hostname() != null) {
        put(names, values, "Hostname", options.hostname());
      }
      if (e.mig() != null) {
        put(names, values, "GPU_I_PROFILE", e.mig().profile().name());
        put(names, values, "GPU_I_ID", Integer.toString(e.mig().gpuInstanceId()));
      }
      for (String label : fields.labels()) {
        if (label.equals(DcgmFields.DRIVER_VERSION)) {
          put(names, values, label, reading.driverVersion());
        }
      }
      List<PodRef> pods = holders.getOrDefault(e.key(), List.of());
      if (pods.isEmpty()) {
        out.add(new Series(Labels.of(names, values), e));
      }
      for (PodRef p : pods) {
        List<String> n = new ArrayList<>(names);
        List<String> v = new ArrayList<>(values);
        put(n, v, "pod", p.pod());
        put(n, v, "namespace", p.namespace());
        put(n, v, "container", p.container());
        if (p.replica() != null) {
          put(n, v, "vgpu", p.replica());
        }
        out.add(new Series(Labels.of(n, v), e));
      }
    }
    return out;
  }

  private static void put(List<String> names, List<String> values, String name, String value) {
    names.add(name);
    values.add(value == null ? "" : value);
  }

  /** A field's value for an entity, in DCGM's unit; NaN when the entity does not report it. */
  static double value(String field, NodeReading.Entity e) {
    if (field.equals(DcgmFields.XID_ERRORS)) {
      return e.lastXid();
    }
    if (field.equals(DcgmFields.FB_TOTAL)) {
      return e.mig() != null ? e.mig().attributes().memorySizeMb() : e.gpu().memoryTotalMiB();
    }
    var profiling = DcgmFields.profiling(field);
    if (profiling.isPresent()) {
      return e.profiling().value(profiling.get());
    }
    DcgmFields.Source source = DcgmFields.source(field).orElseThrow();
    Telemetry t =
        source.scope() == DcgmFields.Scope.DEVICE || e.mig() == null ? e.parent() : e.own();
    return source.read().applyAsDouble(t);
  }
}

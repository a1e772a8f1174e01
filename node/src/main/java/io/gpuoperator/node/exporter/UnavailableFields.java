package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.ProfilingMetric;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which listed fields a GPU cannot give, so a missing series is explained instead of left blank:
 * the profiling fields a reading marks unavailable (GPM before Hopper, NVLink on a PCIe-only board,
 * GPU instances), one gap per entity and field. A pure function of the field list and a reading;
 * the exporter logs the gaps when they change and serves them as {@value #METRIC}.
 */
final class UnavailableFields {
  /** The exporter's own gauge: 1 for each (GPU or GPU instance, field) that cannot be given. */
  static final String METRIC = "gpu_exporter_field_unavailable";

  /** One field an entity cannot give, and why. */
  record Gap(DeviceKey key, String gpuName, String field, String reason) {}

  private final List<ProfilingMetric> listed;

  /**
   * @param listed the profiling fields the field list names
   */
  UnavailableFields(List<ProfilingMetric> listed) {
    this.listed = List.copyOf(listed);
  }

  /** The gaps of a reading, in entity then field-list order. */
  List<Gap> of(NodeReading reading) {
    List<Gap> out = new ArrayList<>();
    for (NodeReading.Entity e : reading.entities()) {
      for (ProfilingMetric m : listed) {
        String why = e.profiling().unavailable().get(m);
        if (why != null) {
          out.add(new Gap(e.key(), e.gpu().name(), m.dcgmName(), why));
        }
      }
    }
    return out;
  }

  /**
   * One line per set of fields and reason, naming every GPU and GPU instance it applies to, so a
   * node of eight MIG GPUs logs one line rather than fifty-six, e.g. {@code GPUs 0, 1 (Tesla T4)
   * cannot give DCGM_FI_PROF_SM_ACTIVE, DCGM_FI_PROF_DRAM_ACTIVE: <reason>}.
   */
  static List<String> sentences(List<Gap> gaps) {
    // Per entity: its fields for each reason, in gap order.
    Map<DeviceKey, Map<String, List<String>>> byEntity = new LinkedHashMap<>();
    Map<DeviceKey, String> models = new LinkedHashMap<>();
    for (Gap g : gaps) {
      byEntity
          .computeIfAbsent(g.key(), k -> new LinkedHashMap<>())
          .computeIfAbsent(g.reason(), r -> new ArrayList<>())
          .add(g.field());
      models.put(g.key(), g.gpuName());
    }
    // Then the entities sharing the same fields and reason.
    Map<String, List<DeviceKey>> who = new LinkedHashMap<>();
    byEntity.forEach(
        (key, reasons) ->
            reasons.forEach(
                (reason, fields) ->
                    who.computeIfAbsent(
                            String.join(", ", fields) + ": " + reason, k -> new ArrayList<>())
                        .add(key)));
    List<String> out = new ArrayList<>();
    who.forEach(
        (what, keys) ->
            out.add(
                entities(keys)
                    + " ("
                    + String.join(", ", keys.stream().map(models::get).distinct().toList())
                    + ") cannot give "
                    + what));
    return out;
  }

  /** {@code GPUs 0, 1; GPU 2 instances 7, 8}: whole GPUs first, then instances per GPU. */
  private static String entities(List<DeviceKey> keys) {
    List<String> whole = new ArrayList<>();
    Map<Integer, List<String>> instances = new LinkedHashMap<>();
    for (DeviceKey k : keys) {
      if (k.mig()) {
        instances
            .computeIfAbsent(k.gpu(), g -> new ArrayList<>())
            .add(Integer.toString(k.gpuInstanceId()));
      } else {
        whole.add(Integer.toString(k.gpu()));
      }
    }
    List<String> parts = new ArrayList<>();
    if (!whole.isEmpty()) {
      parts.add((whole.size() == 1 ? "GPU " : "GPUs ") + String.join(", ", whole));
    }
    instances.forEach(
        (gpu, ids) ->
            parts.add(
                "GPU "
                    + gpu
                    + (ids.size() == 1 ? " instance " : " instances ")
                    + String.join(", ", ids)));
    return String.join("; ", parts);
  }

  /** The gaps as the exporter's own gauge family. */
  static MetricSnapshot family(List<Gap> gaps) {
    var b =
        GaugeSnapshot.builder()
            .name(METRIC)
            .help(
                "1 for each listed field a GPU or GPU instance cannot give (no series is served"
                    + " for it), with the reason.");
    for (Gap g : gaps) {
      Labels labels =
          g.key().mig()
              ? Labels.of(
                  "gpu",
                  Integer.toString(g.key().gpu()),
                  "gpu_i_id",
                  Integer.toString(g.key().gpuInstanceId()),
                  "field",
                  g.field())
              : Labels.of("gpu", Integer.toString(g.key().gpu()), "field", g.field());
      b.dataPoint(
          GaugeSnapshot.GaugeDataPointSnapshot.builder()
              .labels(labels.merge(Labels.of("reason", g.reason())))
              .value(1)
              .build());
    }
    return b.build();
  }
}

package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One parsed {@code GpuConfig} or {@code MigDeviceConfig} ({@code resource.nvidia.com/v1beta1}),
 * decoded strictly as NVIDIA's driver does: an unknown field, kind or value is an error naming the
 * field, so a typo does not silently become the default.
 *
 * @param mig true for {@code MigDeviceConfig}, false for {@code GpuConfig}
 * @param sharing the sharing settings; null when the config leaves sharing unset
 */
public record OpaqueConfig(boolean mig, Sharing sharing) {

  /** Decodes the parameters; {@link IllegalArgumentException} names the field that is wrong. */
  public static OpaqueConfig parse(JsonNode p) {
    if (p == null || !p.isObject()) {
      throw new IllegalArgumentException("parameters: expected an object with apiVersion and kind");
    }
    known(p, "", Set.of("apiVersion", "kind", "sharing"));
    String apiVersion = p.path("apiVersion").asText("");
    if (!DraNames.CONFIG_API_VERSION.equals(apiVersion)) {
      throw new IllegalArgumentException(
          "apiVersion: expected " + DraNames.CONFIG_API_VERSION + ", got \"" + apiVersion + "\"");
    }
    String kind = p.path("kind").asText("");
    boolean mig;
    if (DraNames.KIND_GPU_CONFIG.equals(kind)) {
      mig = false;
    } else if (DraNames.KIND_MIG_DEVICE_CONFIG.equals(kind)) {
      mig = true;
    } else {
      throw new IllegalArgumentException(
          "kind: expected "
              + DraNames.KIND_GPU_CONFIG
              + " or "
              + DraNames.KIND_MIG_DEVICE_CONFIG
              + ", got \""
              + kind
              + "\"");
    }
    JsonNode s = p.path("sharing");
    return new OpaqueConfig(mig, s.isMissingNode() || s.isNull() ? null : sharing(s, mig));
  }

  /** The kind's name. */
  public String kind() {
    return mig ? DraNames.KIND_MIG_DEVICE_CONFIG : DraNames.KIND_GPU_CONFIG;
  }

  private static Sharing sharing(JsonNode s, boolean mig) {
    if (mig && s.has("timeSlicingConfig")) {
      throw new IllegalArgumentException(
          "sharing.timeSlicingConfig: not supported by MigDeviceConfig (a MIG device's time-slice"
              + " cannot be set)");
    }
    known(
        s,
        "sharing.",
        mig
            ? Set.of("strategy", "mpsConfig")
            : Set.of("strategy", "timeSlicingConfig", "mpsConfig"));
    String name = s.path("strategy").asText("");
    Sharing.Strategy strategy = null;
    for (Sharing.Strategy st : Sharing.Strategy.values()) {
      if (st.apiName().equals(name)) {
        strategy = st;
      }
    }
    if (strategy == null) {
      throw new IllegalArgumentException(
          "sharing.strategy: expected TimeSlicing or MPS, got \"" + name + "\"");
    }
    JsonNode ts = s.path("timeSlicingConfig");
    JsonNode mps = s.path("mpsConfig");
    if (strategy == Sharing.Strategy.TIME_SLICING) {
      if (!mps.isMissingNode()) {
        throw new IllegalArgumentException(
            "sharing.mpsConfig: only allowed with strategy MPS (strategy is TimeSlicing)");
      }
      return new Sharing(strategy, interval(ts), null);
    }
    if (!ts.isMissingNode()) {
      throw new IllegalArgumentException(
          "sharing.timeSlicingConfig: only allowed with strategy TimeSlicing (strategy is MPS)");
    }
    return new Sharing(strategy, null, mps(mps));
  }

  private static Sharing.Interval interval(JsonNode ts) {
    if (ts.isMissingNode() || ts.isNull()) {
      return Sharing.Interval.DEFAULT;
    }
    known(ts, "sharing.timeSlicingConfig.", Set.of("interval"));
    JsonNode i = ts.path("interval");
    if (i.isMissingNode()) {
      return Sharing.Interval.DEFAULT;
    }
    for (Sharing.Interval v : Sharing.Interval.values()) {
      if (v.apiName().equals(i.asText())) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "sharing.timeSlicingConfig.interval: expected Default, Short, Medium or Long, got " + i);
  }

  private static Sharing.Mps mps(JsonNode m) {
    if (m.isMissingNode() || m.isNull()) {
      return new Sharing.Mps(null, null, Map.of());
    }
    String at = "sharing.mpsConfig.";
    known(
        m,
        at,
        Set.of(
            "defaultActiveThreadPercentage",
            "defaultPinnedDeviceMemoryLimit",
            "defaultPerDevicePinnedMemoryLimit"));
    Integer percentage = null;
    JsonNode pct = m.path("defaultActiveThreadPercentage");
    if (!pct.isMissingNode()) {
      if (!pct.isInt() || pct.asInt() < 0 || pct.asInt() > 100) {
        throw new IllegalArgumentException(
            at + "defaultActiveThreadPercentage: expected an integer from 0 to 100, got " + pct);
      }
      percentage = pct.asInt();
    }
    Long limit = null;
    JsonNode l = m.path("defaultPinnedDeviceMemoryLimit");
    if (!l.isMissingNode()) {
      limit = bytes(l, at + "defaultPinnedDeviceMemoryLimit");
    }
    Map<String, Long> perDevice = new LinkedHashMap<>();
    JsonNode per = m.path("defaultPerDevicePinnedMemoryLimit");
    if (!per.isMissingNode()) {
      if (!per.isObject()) {
        throw new IllegalArgumentException(
            at + "defaultPerDevicePinnedMemoryLimit: expected a map of device to quantity");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = per.fields(); it.hasNext(); ) {
        var e = it.next();
        perDevice.put(
            e.getKey(),
            bytes(e.getValue(), at + "defaultPerDevicePinnedMemoryLimit[" + e.getKey() + "]"));
      }
    }
    return new Sharing.Mps(percentage, limit, perDevice);
  }

  private static long bytes(JsonNode q, String field) {
    String text = q.isNumber() ? q.asText() : q.isTextual() ? q.asText() : null;
    try {
      if (text == null) {
        throw new IllegalArgumentException("not a quantity");
      }
      long bytes = Quantity.getAmountInBytes(new Quantity(text)).longValueExact();
      if (bytes < 0) {
        throw new IllegalArgumentException("negative");
      }
      return bytes;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          field + ": expected a non-negative quantity like 10Gi, got " + q);
    }
  }

  private static void known(JsonNode node, String prefix, Set<String> fields) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw new IllegalArgumentException(
            prefix + f + ": unknown field (known: " + String.join(", ", sorted(fields)) + ")");
      }
    }
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }
}

package io.gpuoperator.operator.config;

import java.time.Duration;
import java.util.Map;

/** Every environment variable the operator reads, with its default. */
public enum Env {
  OPERATOR_NAMESPACE("gpu-operator"),
  METRICS_PORT("8080"),
  HEALTH_PORT("8081"),
  LEADER_ELECT("true"),
  LEADER_ELECT_NAMESPACE(null),
  LEASE_DURATION("15s"),
  RENEW_DEADLINE("10s"),
  RETRY_PERIOD("2s"),
  RECONCILE_BACKOFF_MAX("1m"),
  RESYNC_PERIOD("10m"),
  LOG_LEVEL("info"),
  LOG_FORMAT("text"),
  DRIVER_IMAGE(null),
  DRIVER_MANAGER_IMAGE(null),
  CONTAINER_TOOLKIT_IMAGE(null),
  VALIDATOR_IMAGE(null),
  DEVICE_PLUGIN_IMAGE(null),
  DCGM_IMAGE(null),
  DCGM_EXPORTER_IMAGE(null),
  GFD_IMAGE(null),
  MIG_MANAGER_IMAGE(null),
  NODE_STATUS_EXPORTER_IMAGE(null),
  GDS_IMAGE(null),
  GDRCOPY_IMAGE(null),
  VGPU_MANAGER_IMAGE(null),
  VGPU_DEVICE_MANAGER_IMAGE(null),
  VFIO_MANAGER_IMAGE(null),
  SANDBOX_DEVICE_PLUGIN_IMAGE(null),
  KATA_SANDBOX_DEVICE_PLUGIN_IMAGE(null),
  CC_MANAGER_IMAGE(null);

  /** Image variables and the operand they override (names as the original's operator env). */
  static final Map<Env, String> IMAGES =
      Map.ofEntries(
          Map.entry(DRIVER_IMAGE, "driver"),
          Map.entry(DRIVER_MANAGER_IMAGE, "driver-manager"),
          Map.entry(CONTAINER_TOOLKIT_IMAGE, "container-toolkit"),
          Map.entry(VALIDATOR_IMAGE, "operator-validator"),
          Map.entry(DEVICE_PLUGIN_IMAGE, "device-plugin"),
          Map.entry(DCGM_IMAGE, "dcgm"),
          Map.entry(DCGM_EXPORTER_IMAGE, "dcgm-exporter"),
          Map.entry(GFD_IMAGE, "gpu-feature-discovery"),
          Map.entry(MIG_MANAGER_IMAGE, "mig-manager"),
          Map.entry(NODE_STATUS_EXPORTER_IMAGE, "node-status-exporter"),
          Map.entry(GDS_IMAGE, "gds"),
          Map.entry(GDRCOPY_IMAGE, "gdrcopy"),
          Map.entry(VGPU_MANAGER_IMAGE, "vgpu-manager"),
          Map.entry(VGPU_DEVICE_MANAGER_IMAGE, "vgpu-device-manager"),
          Map.entry(VFIO_MANAGER_IMAGE, "vfio-manager"),
          Map.entry(SANDBOX_DEVICE_PLUGIN_IMAGE, "sandbox-device-plugin"),
          Map.entry(KATA_SANDBOX_DEVICE_PLUGIN_IMAGE, "kata-sandbox-device-plugin"),
          Map.entry(CC_MANAGER_IMAGE, "cc-manager"));

  private final String defaultValue;

  Env(String defaultValue) {
    this.defaultValue = defaultValue;
  }

  public String get(Map<String, String> env) {
    String v = env.get(name());
    return v == null || v.isBlank() ? defaultValue : v.trim();
  }

  public int getInt(Map<String, String> env) {
    String v = get(env);
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name() + "=" + v + ": expected an integer", e);
    }
  }

  public boolean getBoolean(Map<String, String> env) {
    String v = get(env);
    if ("true".equalsIgnoreCase(v) || "false".equalsIgnoreCase(v)) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException(name() + "=" + v + ": expected true or false");
  }

  /** Durations as Go writes them: 500ms, 15s, 2m, 1h. */
  public Duration getDuration(Map<String, String> env) {
    String v = get(env);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)").matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException(name() + "=" + v + ": expected a duration like 15s or 2m");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }
}

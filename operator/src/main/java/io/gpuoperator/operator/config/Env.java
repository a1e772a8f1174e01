package io.gpuoperator.operator.config;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * Every environment variable the operator reads, with its parser, bound and default, declared once;
 * values are resolved by {@link Settings}, so a bad one reads {@code METRICS_PORT: expected a whole
 * number from 0 to 65535, got "99999"} like every other setting of the project.
 */
public enum Env {
  OPERATOR_NAMESPACE(Parse::dnsLabel, "gpu-operator"),
  METRICS_PORT(Parse.port(true), "8080"),
  HEALTH_PORT(Parse.port(true), "8081"),
  LEADER_ELECT(Parse::bool, "true"),
  LEADER_ELECT_NAMESPACE(Parse::dnsLabel, null),
  LEASE_DURATION(Env.leaseTiming(), "15s"),
  RENEW_DEADLINE(Env.leaseTiming(), "10s"),
  RETRY_PERIOD(Env.leaseTiming(), "2s"),
  RECONCILE_BACKOFF_MAX(Parse.duration(Duration.ofMillis(100), Duration.ofHours(1)), "1m"),
  RESYNC_PERIOD(Parse.duration(Duration.ofMillis(100), Duration.ofHours(24)), "10m"),
  // A changed operand DaemonSet is written at most once per window (0: at once), so a burst of
  // policy edits rolls each DaemonSet a few times instead of once per edit.
  DAEMONSET_SETTLE_WINDOW(Parse.duration(Duration.ZERO, Duration.ofMinutes(10)), "5s"),
  // One nvidia-node-agents DaemonSet hosting our long-running agents instead of one each.
  NODE_AGENTS(Parse::bool, "false"),
  // A host folder holding each node's node-profile.yaml: our agents use simulated GPUs described
  // by it instead of NVML (the stack on a real node without GPUs). Unset: NVML.
  SIMULATED_HARDWARE_DIR(Env::absolutePath, null),
  // The chart's platform.openshift: operands get their SecurityContextConstraints even where the
  // server's discovery does not show security.openshift.io (the operator also looks itself).
  PLATFORM_OPENSHIFT(Parse::bool, "false"),
  DRIVER_IMAGE(Parse::image, null),
  DRIVER_MANAGER_IMAGE(Parse::image, null),
  CONTAINER_TOOLKIT_IMAGE(Parse::image, null),
  VALIDATOR_IMAGE(Parse::image, null),
  DEVICE_PLUGIN_IMAGE(Parse::image, null),
  DRA_DRIVER_IMAGE(Parse::image, null),
  DCGM_IMAGE(Parse::image, null),
  DCGM_EXPORTER_IMAGE(Parse::image, null),
  GFD_IMAGE(Parse::image, null),
  MIG_MANAGER_IMAGE(Parse::image, null),
  NODE_STATUS_EXPORTER_IMAGE(Parse::image, null),
  GDS_IMAGE(Parse::image, null),
  GDRCOPY_IMAGE(Parse::image, null),
  VGPU_MANAGER_IMAGE(Parse::image, null),
  VGPU_DEVICE_MANAGER_IMAGE(Parse::image, null),
  VFIO_MANAGER_IMAGE(Parse::image, null),
  SANDBOX_DEVICE_PLUGIN_IMAGE(Parse::image, null),
  KATA_SANDBOX_DEVICE_PLUGIN_IMAGE(Parse::image, null),
  CC_MANAGER_IMAGE(Parse::image, null);

  /** Image variables and the operand they override (names as the original's operator env). */
  static final Map<Env, String> IMAGES =
      Map.ofEntries(
          Map.entry(DRIVER_IMAGE, "driver"),
          Map.entry(DRIVER_MANAGER_IMAGE, "driver-manager"),
          Map.entry(CONTAINER_TOOLKIT_IMAGE, "container-toolkit"),
          Map.entry(VALIDATOR_IMAGE, "operator-validator"),
          Map.entry(DEVICE_PLUGIN_IMAGE, "device-plugin"),
          Map.entry(DRA_DRIVER_IMAGE, "dra-driver"),
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

  private final Setting<Object> setting;

  @SuppressWarnings("unchecked")
  Env(Function<String, ?> parser, String defaultValue) {
    Function<String, Object> p = (Function<String, Object>) parser;
    this.setting =
        Setting.of(null, p)
            .env(name())
            .orElse(defaultValue == null ? null : p.apply(defaultValue), defaultValue);
  }

  /** The setting of this variable (parser, bound, default). */
  public Setting<Object> setting() {
    return setting;
  }

  public String get(Map<String, String> env) {
    Object v = Settings.ofEnv(env).get(setting);
    return v == null ? null : v.toString();
  }

  public int getInt(Map<String, String> env) {
    return (Integer) Settings.ofEnv(env).get(setting);
  }

  public boolean getBoolean(Map<String, String> env) {
    return (Boolean) Settings.ofEnv(env).get(setting);
  }

  public Duration getDuration(Map<String, String> env) {
    return (Duration) Settings.ofEnv(env).get(setting);
  }

  private static String absolutePath(String s) {
    if (!Parse.path(s).isAbsolute()) {
      throw new IllegalArgumentException("expected an absolute path, got " + s);
    }
    return s;
  }

  /** Lease timings: from 100ms to 10 minutes, Go syntax. */
  private static Function<String, Duration> leaseTiming() {
    return Parse.duration(Duration.ofMillis(100), Duration.ofMinutes(10));
  }
}

package io.gpuoperator.node.discovery;

import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.GoDuration;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The feature-discovery settings after precedence is applied: command-line flag, then environment
 * variable, then the config file's {@code flags}, then the original's default.
 *
 * @param migStrategy none, single or mixed
 * @param failOnInitError exit when the GPU backend cannot start
 * @param oneshot label once and exit
 * @param noTimestamp leave out {@code gfd.timestamp}
 * @param sleepInterval time between passes
 * @param outputFile NFD feature file
 * @param machineTypeFile DMI product-name file, null to use the simulated node's machine type
 * @param output auto, file, node-feature or node-labels
 * @param nodeName this node
 * @param namespace namespace of the NodeFeature object
 * @param kubeconfig kubeconfig file, null for in-cluster or default configuration
 * @param backend nvml or simulated
 * @param nodeProfile simulated node profile (built-in name or file)
 * @param nvmlLibrary libnvidia-ml.so.1 path, null for the loader's search path
 * @param sysfsRoot sysfs root of the GPUs for NVML, null for /sys
 */
public record DiscoverySettings(
    String migStrategy,
    boolean failOnInitError,
    boolean oneshot,
    boolean noTimestamp,
    Duration sleepInterval,
    String outputFile,
    String machineTypeFile,
    String output,
    String nodeName,
    String namespace,
    String kubeconfig,
    String backend,
    String nodeProfile,
    String nvmlLibrary,
    String sysfsRoot) {

  static final Set<String> OUTPUTS = Set.of("auto", "file", "node-feature", "node-labels");
  static final Set<String> BACKENDS = Set.of("nvml", "simulated");

  /** Values given on the command line (null when not given). */
  public record Flags(
      String migStrategy,
      Boolean failOnInitError,
      Boolean oneshot,
      Boolean noTimestamp,
      String sleepInterval,
      String outputFile,
      String machineTypeFile,
      Boolean useNodeFeatureApi,
      String output,
      String nodeName,
      String namespace,
      String kubeconfig,
      String backend,
      String nodeProfile,
      String nvmlLibrary,
      String sysfsRoot) {}

  /** Applies precedence; ConfigException names the setting and where its bad value came from. */
  public static DiscoverySettings resolve(
      Flags f, Map<String, String> env, DevicePluginConfig config) {
    DevicePluginConfig.Flags cf = config.flags();
    DevicePluginConfig.GfdFlags gfd = cf == null ? null : cf.gfd();
    String mig =
        pick(
                f.migStrategy(),
                "--mig-strategy",
                env,
                List.of(DiscoveryEnv.MIG_STRATEGY, DiscoveryEnv.MIG_STRATEGY_SHARED),
                cf == null ? null : cf.migStrategy(),
                "none")
            .value();
    oneOf("mig strategy", mig, DevicePluginConfig.MIG_STRATEGIES);
    String backend =
        pick(f.backend(), "--backend", env, List.of(DiscoveryEnv.BACKEND), null, "nvml").value();
    oneOf("backend", backend, BACKENDS);
    boolean useNfd =
        bool(
            pick(
                str(f.useNodeFeatureApi()),
                "--use-node-feature-api",
                env,
                List.of(DiscoveryEnv.USE_NODE_FEATURE_API),
                cf == null ? null : str(cf.useNodeFeatureApi()),
                "true"));
    String output =
        pick(
                f.output(),
                "--output",
                env,
                List.of(DiscoveryEnv.OUTPUT),
                null,
                useNfd ? "auto" : "file")
            .value();
    oneOf("output", output, OUTPUTS);
    boolean simulated = backend.equals("simulated");
    String profile =
        pick(f.nodeProfile(), "--node-profile", env, List.of(DiscoveryEnv.NODE_PROFILE), null, null)
            .value();
    if (simulated && profile == null) {
      throw new ConfigException(
          "--node-profile (or "
              + DiscoveryEnv.NODE_PROFILE
              + ") is required with --backend simulated");
    }
    Picked interval =
        pick(
            f.sleepInterval(),
            "--sleep-interval",
            env,
            List.of(DiscoveryEnv.SLEEP_INTERVAL),
            gfd == null ? null : gfd.sleepInterval(),
            DiscoveryEnv.DEFAULT_SLEEP_INTERVAL);
    Duration sleep;
    try {
      sleep = GoDuration.parse(interval.value());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(interval.source() + ": " + e.getMessage(), e);
    }
    return new DiscoverySettings(
        mig,
        bool(
            pick(
                str(f.failOnInitError()),
                "--fail-on-init-error",
                env,
                List.of(DiscoveryEnv.FAIL_ON_INIT_ERROR),
                cf == null ? null : str(cf.failOnInitError()),
                "true")),
        bool(
            pick(
                str(f.oneshot()),
                "--oneshot",
                env,
                List.of(DiscoveryEnv.ONESHOT),
                gfd == null ? null : str(gfd.oneshot()),
                "false")),
        bool(
            pick(
                str(f.noTimestamp()),
                "--no-timestamp",
                env,
                List.of(DiscoveryEnv.NO_TIMESTAMP),
                gfd == null ? null : str(gfd.noTimestamp()),
                "false")),
        sleep,
        pick(
                f.outputFile(),
                "--output-file",
                env,
                List.of(DiscoveryEnv.OUTPUT_FILE),
                gfd == null ? null : gfd.outputFile(),
                DiscoveryEnv.DEFAULT_OUTPUT_FILE)
            .value(),
        pick(
                f.machineTypeFile(),
                "--machine-type-file",
                env,
                List.of(DiscoveryEnv.MACHINE_TYPE_FILE),
                gfd == null ? null : gfd.machineTypeFile(),
                simulated ? null : DiscoveryEnv.DEFAULT_MACHINE_TYPE_FILE)
            .value(),
        output,
        pick(f.nodeName(), "--node-name", env, List.of(DiscoveryEnv.NODE_NAME), null, null).value(),
        pick(f.namespace(), "--namespace", env, List.of(DiscoveryEnv.NAMESPACE), null, "default")
            .value(),
        pick(f.kubeconfig(), "--kubeconfig", env, List.of(DiscoveryEnv.KUBECONFIG), null, null)
            .value(),
        backend,
        profile,
        pick(f.nvmlLibrary(), "--nvml-library", env, List.of(DiscoveryEnv.NVML_LIBRARY), null, null)
            .value(),
        pick(
                f.sysfsRoot(),
                "--sysfs-root",
                env,
                List.of(DiscoveryEnv.SYSFS_ROOT),
                null,
                simulated ? null : "/sys")
            .value());
  }

  /** A value and where it came from, for error messages. */
  private record Picked(String value, String source) {}

  /** Flag, else the first env var set, else the config value, else the default. */
  private static Picked pick(
      String flag,
      String flagName,
      Map<String, String> env,
      List<String> envNames,
      String fromConfig,
      String defaultValue) {
    if (flag != null) {
      return new Picked(flag, flagName);
    }
    for (String name : envNames) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        return new Picked(v.trim(), "environment variable " + name);
      }
    }
    if (fromConfig != null) {
      return new Picked(fromConfig, "config file flags");
    }
    return new Picked(defaultValue, "default");
  }

  private static String str(Boolean b) {
    return b == null ? null : b.toString();
  }

  private static boolean bool(Picked p) {
    try {
      return bool(p.value());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(p.source() + ": " + e.getMessage(), e);
    }
  }

  private static Boolean bool(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "true", "1", "t", "yes" -> true;
      case "false", "0", "f", "no" -> false;
      default -> throw new IllegalArgumentException("expected true or false, got '" + s + "'");
    };
  }

  private static void oneOf(String what, String value, Set<String> allowed) {
    if (!allowed.contains(value)) {
      throw new ConfigException(
          "unknown "
              + what
              + " '"
              + value
              + "' (expected one of "
              + new java.util.TreeSet<>(allowed)
              + ")");
    }
  }
}

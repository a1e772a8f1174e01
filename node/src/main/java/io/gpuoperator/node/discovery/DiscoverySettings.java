package io.gpuoperator.node.discovery;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.config.GoDuration;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.MigStrategySetting;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The feature-discovery settings after precedence is applied (flag, then environment variable, then
 * the config file's {@code flags}, then the original's default), declared once below with the
 * original's names; the command's options come from them.
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
 * @param sysfsRoot sysfs root of the GPUs' PCI devices for NVML, null when simulated
 */
public record DiscoverySettings(
    String migStrategy,
    boolean failOnInitError,
    boolean oneshot,
    boolean noTimestamp,
    Duration sleepInterval,
    Path outputFile,
    Path machineTypeFile,
    String output,
    String nodeName,
    String namespace,
    Path sysfsRoot) {

  public static final String DEFAULT_OUTPUT_FILE =
      "/etc/kubernetes/node-feature-discovery/features.d/gfd";
  public static final String DEFAULT_MACHINE_TYPE_FILE = "/sys/class/dmi/id/product_name";

  public static final Setting<MigStrategy> MIG_STRATEGY =
      MigStrategySetting.BASE
          .env("GFD_MIG_STRATEGY", "MIG_STRATEGY")
          .help("How MIG devices are labelled.");
  public static final Setting<Boolean> FAIL_ON_INIT_ERROR =
      Setting.bool("--fail-on-init-error")
          .env("GFD_FAIL_ON_INIT_ERROR")
          .field("flags.failOnInitError")
          .help("Exit when the GPU backend cannot start; false labels without GPUs.")
          .orElse(true);
  public static final Setting<Boolean> ONESHOT =
      Setting.bool("--oneshot")
          .env("GFD_ONESHOT")
          .field("flags.gfd.oneshot")
          .help("Label once and exit.")
          .orElse(false);
  public static final Setting<Boolean> NO_TIMESTAMP =
      Setting.bool("--no-timestamp")
          .env("GFD_NO_TIMESTAMP")
          .field("flags.gfd.noTimestamp")
          .help("Leave out nvidia.com/gfd.timestamp.")
          .orElse(false);
  public static final Setting<Duration> SLEEP_INTERVAL =
      Setting.of("--sleep-interval", Parse.duration(Duration.ofSeconds(1), GoDuration.INFINITE))
          .env("GFD_SLEEP_INTERVAL")
          .field("flags.gfd.sleepInterval")
          .label("DURATION")
          .help("Time between passes, Go syntax (60s, 5m) or infinite.")
          .orElse(Duration.ofSeconds(60), "60s");
  public static final Setting<Path> OUTPUT_FILE =
      Setting.of("--output-file", Parse::path)
          .alias("-o")
          .env("GFD_OUTPUT_FILE")
          .field("flags.gfd.outputFile")
          .label("FILE")
          .help("The NFD feature file (output file).")
          .orElse(Path.of(DEFAULT_OUTPUT_FILE), DEFAULT_OUTPUT_FILE);
  public static final Setting<Path> MACHINE_TYPE_FILE =
      Setting.of("--machine-type-file", Parse::path)
          .env("GFD_MACHINE_TYPE_FILE")
          .field("flags.gfd.machineTypeFile")
          .label("FILE")
          .help("Where the machine type is read (simulated: the node profile's).")
          .orElseDescribed(DEFAULT_MACHINE_TYPE_FILE);
  public static final Setting<Path> CONFIG_FILE =
      Setting.of("--config-file", Parse::path)
          .env("GFD_CONFIG_FILE", "CONFIG_FILE")
          .label("FILE")
          .help("The device-plugin config file (version: v1), for sharing and flags.");
  public static final Setting<Boolean> USE_NODE_FEATURE_API =
      Setting.bool("--use-node-feature-api")
          .env("GFD_USE_NODE_FEATURE_API")
          .field("flags.useNodeFeatureAPI")
          .help("Publish NodeFeature objects; false writes the feature file.")
          .orElse(true);
  public static final Setting<String> OUTPUT =
      Setting.of(
              "--output",
              Parse.oneOf("output", List.of("auto", "file", "node-feature", "node-labels")))
          .env("GFD_OUTPUT")
          .label("auto|file|node-feature|node-labels")
          .help(
              "Where labels go. auto: a NodeFeature when NFD serves it, else the Node's labels;"
                  + " the file without a cluster.")
          .orElseDescribed("auto (file with --use-node-feature-api=false)");
  public static final Setting<String> NAMESPACE =
      Setting.of("--namespace", Parse::dnsLabel)
          .env("POD_NAMESPACE")
          .label("NS")
          .help("Namespace of the NodeFeature object.")
          .orElse("default");
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", Parse::path)
          .env("GFD_SYSFS_ROOT")
          .label("DIR")
          .help("sysfs root of the GPUs' PCI devices for NVML.")
          .orElseDescribed("/sys");

  /** Every setting of feature discovery itself, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          MIG_STRATEGY,
          FAIL_ON_INIT_ERROR,
          ONESHOT,
          NO_TIMESTAMP,
          SLEEP_INTERVAL,
          OUTPUT_FILE,
          MACHINE_TYPE_FILE,
          CONFIG_FILE,
          USE_NODE_FEATURE_API,
          OUTPUT,
          NAMESPACE,
          SYSFS_ROOT);

  /**
   * Applies precedence; ConfigException names the setting and where its bad value came from. The
   * config file is the one {@code s} carries ({@link Settings#withFile}).
   */
  public static DiscoverySettings resolve(Settings s) {
    boolean simulated = "simulated".equals(s.get(NodeAgentOptions.BACKEND));
    String output = s.get(OUTPUT);
    if (output == null) {
      output = s.get(USE_NODE_FEATURE_API) ? "auto" : "file";
    }
    Path machineType = s.get(MACHINE_TYPE_FILE);
    Path sysfs = s.get(SYSFS_ROOT);
    return new DiscoverySettings(
        s.get(MIG_STRATEGY).value(),
        s.get(FAIL_ON_INIT_ERROR),
        s.get(ONESHOT),
        s.get(NO_TIMESTAMP),
        s.get(SLEEP_INTERVAL),
        s.get(OUTPUT_FILE),
        machineType != null || simulated ? machineType : Path.of(DEFAULT_MACHINE_TYPE_FILE),
        output,
        s.get(NodeAgentOptions.NODE_NAME),
        s.get(NAMESPACE),
        sysfs != null || simulated ? sysfs : Path.of("/sys"));
  }
}

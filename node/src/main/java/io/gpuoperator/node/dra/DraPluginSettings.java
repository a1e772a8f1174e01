package io.gpuoperator.node.dra;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.Values;
import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.HealthMonitor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything the DRA plugin acts on, declared once below and resolved by {@link Settings} (flag,
 * then environment variable, then default); a bad value is an error naming its source and what it
 * accepts.
 *
 * @param nodeName this node ({@code NODE_NAME}, required): the pool and {@code spec.nodeName}
 * @param registrarDir the kubelet's plugin-registration directory
 * @param pluginsDir the kubelet's plugin directory; the plugin's socket and checkpoint go into
 *     {@code <pluginsDir>/gpu.nvidia.com/}
 * @param cdiRoot where the claims' CDI specs go
 * @param driverRoot where the driver's files are on the host ({@code nvidia-smi} for time-slices)
 * @param devRoot where the device nodes are on the host
 * @param mpsRoot where each MPS claim gets a pipe directory on the host
 * @param partitionable whether to publish MIG placements as partitionable devices
 * @param rescanInterval how often the GPUs are read again for changes (MIG layout, lost GPUs)
 * @param healthRecovery quiet time after which a device withdrawn for an XID is offered again
 * @param computeDomains whether the plugin also serves NVIDIA's ComputeDomain driver ({@code
 *     compute-domain.nvidia.com}: IMEX channels)
 * @param procDevices the kernel's character-device list, for the IMEX channels' major
 */
public record DraPluginSettings(
    String nodeName,
    Path registrarDir,
    Path pluginsDir,
    Path cdiRoot,
    Path driverRoot,
    Path devRoot,
    Path mpsRoot,
    Partitionable partitionable,
    Duration rescanInterval,
    Duration healthRecovery,
    boolean computeDomains,
    Path procDevices) {

  /** Whether MIG placements are published as partitionable devices. */
  public enum Partitionable {
    /** When the server is Kubernetes 1.36 or newer with {@code resource.k8s.io/v1}. */
    AUTO,
    TRUE,
    FALSE
  }

  /** The plugin's own directory: its socket and checkpoint. */
  public Path pluginDir() {
    return pluginsDir.resolve(DraNames.DRIVER);
  }

  /** The DRA service socket. */
  public Path pluginSocket() {
    return pluginDir().resolve(DraNames.PLUGIN_SOCKET);
  }

  /** The registration socket the kubelet's plugin watcher finds. */
  public Path registrationSocket() {
    return registrarDir.resolve(DraNames.REGISTRATION_SOCKET);
  }

  /** The checkpoint file. */
  public Path checkpointFile() {
    return pluginDir().resolve(DraNames.CHECKPOINT_FILE);
  }

  /** The ComputeDomain driver's own directory: its socket, checkpoint and domain directories. */
  public Path computeDomainPluginDir() {
    return pluginsDir.resolve(ComputeDomainNames.DRIVER);
  }

  /** The ComputeDomain driver's DRA service socket. */
  public Path computeDomainPluginSocket() {
    return computeDomainPluginDir().resolve(DraNames.PLUGIN_SOCKET);
  }

  /** The ComputeDomain driver's registration socket. */
  public Path computeDomainRegistrationSocket() {
    return registrarDir.resolve(ComputeDomainNames.DRIVER + "-reg.sock");
  }

  public static final Setting<Path> REGISTRAR_DIR =
      Setting.of("--kubelet-registrar-directory-path", DraPluginSettings::absolute)
          .env(DraNames.ENV_REGISTRAR_DIR)
          .label("DIR")
          .help("The kubelet's plugin-registration directory.")
          .orElse(Path.of(DraConstants.KUBELET_ROOT, DraConstants.PLUGINS_REGISTRY_DIR));
  public static final Setting<Path> PLUGINS_DIR =
      Setting.of("--kubelet-plugins-directory-path", DraPluginSettings::absolute)
          .env(DraNames.ENV_PLUGINS_DIR)
          .label("DIR")
          .help("The kubelet's plugin directory (socket and checkpoint go below it).")
          .orElse(Path.of(DraConstants.KUBELET_ROOT, DraConstants.PLUGINS_DIR));
  public static final Setting<Path> CDI_ROOT =
      Setting.of("--cdi-root", DraPluginSettings::absolute)
          .env(DraNames.ENV_CDI_ROOT)
          .label("DIR")
          .help("Where the claims' CDI specs are written.")
          .orElse(Path.of("/var/run/cdi"));
  public static final Setting<Path> DRIVER_ROOT =
      Setting.of("--nvidia-driver-root", DraPluginSettings::absolute)
          .env(DraNames.ENV_NVIDIA_DRIVER_ROOT)
          .label("DIR")
          .help("Where the driver is installed on the host.")
          .orElse(Path.of("/"));
  public static final Setting<Path> DEV_ROOT =
      Setting.of("--nvidia-dev-root", DraPluginSettings::absolute)
          .env(DraNames.ENV_NVIDIA_DEV_ROOT)
          .label("DIR")
          .help("Where the device nodes are on the host.")
          .orElseDescribed("the driver root");
  public static final Setting<Path> MPS_ROOT =
      Setting.of("--mps-root", DraPluginSettings::absolute)
          .env(DraNames.ENV_MPS_ROOT)
          .label("DIR")
          .help("Host directory of the claims' MPS pipes.")
          .orElse(Path.of("/run/nvidia/mps"));
  public static final Setting<Partitionable> PARTITIONABLE =
      Setting.of(
              "--partitionable-devices",
              Parse.oneOf("partitionable-devices mode", partitionableModes()))
          .env(DraNames.ENV_PARTITIONABLE_DEVICES)
          .label("auto|true|false")
          .help("Publish MIG placements as partitionable devices (auto: Kubernetes 1.36+).")
          .orElse(Partitionable.AUTO, "auto");
  public static final Setting<Duration> RESCAN_INTERVAL =
      Setting.of("--rescan-interval", Parse.duration(Duration.ofSeconds(1), Duration.ofHours(1)))
          .env(DraNames.ENV_RESCAN_INTERVAL)
          .label("DURATION")
          .help("How often the GPUs are read again for changes.")
          .orElse(Duration.ofSeconds(10), "10s");
  public static final Setting<Boolean> COMPUTE_DOMAINS =
      Setting.bool("--compute-domains")
          .env(ComputeDomainNames.ENV_COMPUTE_DOMAINS)
          .help(
              "Also serve NVIDIA's ComputeDomain driver (compute-domain.nvidia.com): IMEX channels"
                  + " on nodes whose GPUs are in an NVLink fabric clique.")
          .orElse(false);
  public static final Setting<Path> PROC_DEVICES =
      Setting.of("--proc-devices", DraPluginSettings::absolute)
          .env(ComputeDomainNames.ENV_PROC_DEVICES)
          .label("FILE")
          .help("The kernel's device list, for the IMEX channels' major (ComputeDomains).")
          .orElse(Path.of("/proc/devices"));
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", DraPluginSettings::absolute)
          .env("SYSFS_ROOT")
          .label("DIR")
          .help("sysfs, for the GPUs' PCIe roots.")
          .orElse(Path.of("/sys"));

  /**
   * The DRA plugin's own settings, in help order; the quiet time after an XID is the device
   * plugin's setting, with the same meaning.
   */
  public static final List<Setting<?>> ALL =
      List.of(
          CDI_ROOT,
          DRIVER_ROOT,
          DEV_ROOT,
          REGISTRAR_DIR,
          PLUGINS_DIR,
          PARTITIONABLE,
          RESCAN_INTERVAL,
          MPS_ROOT,
          SYSFS_ROOT,
          HealthMonitor.RECOVERY_PERIOD,
          COMPUTE_DOMAINS,
          PROC_DEVICES);

  /** Resolves the settings; a bad value is a ConfigException naming its source. */
  public static DraPluginSettings resolve(Settings s) {
    String node = NodeAgentOptions.nodeName(s);
    if (node == null) {
      throw new ConfigException(
          NodeAgentOptions.NODE_NAME.flag()
              + ": required (or "
              + DraNames.ENV_NODE_NAME
              + "); the node whose GPUs this plugin publishes");
    }
    Path driverRoot = s.get(DRIVER_ROOT);
    Path devRoot = s.get(DEV_ROOT);
    return new DraPluginSettings(
        node,
        s.get(REGISTRAR_DIR),
        s.get(PLUGINS_DIR),
        s.get(CDI_ROOT),
        driverRoot,
        devRoot == null ? driverRoot : devRoot,
        s.get(MPS_ROOT),
        s.get(PARTITIONABLE),
        s.get(RESCAN_INTERVAL),
        s.get(HealthMonitor.RECOVERY_PERIOD),
        s.get(COMPUTE_DOMAINS),
        s.get(PROC_DEVICES));
  }

  /** Reads the settings from an environment (tests and the simulator's in-process plugin). */
  public static DraPluginSettings fromEnv(Map<String, String> env) {
    return resolve(Settings.ofEnv(env));
  }

  /** The modes in the order messages list them. */
  private static Map<String, Partitionable> partitionableModes() {
    Map<String, Partitionable> modes = new java.util.LinkedHashMap<>();
    modes.put("auto", Partitionable.AUTO);
    modes.put("true", Partitionable.TRUE);
    modes.put("false", Partitionable.FALSE);
    return modes;
  }

  private static Path absolute(String value) {
    Path p = Parse.path(value);
    if (!p.isAbsolute()) {
      throw new IllegalArgumentException("expected an absolute path, got " + Values.quote(value));
    }
    return p;
  }
}

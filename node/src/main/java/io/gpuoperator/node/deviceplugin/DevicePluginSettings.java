package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.Values;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfig.ReplicatedResource;
import io.gpuoperator.node.config.DevicePluginConfig.ReplicatedResources;
import io.gpuoperator.node.gpu.HealthMonitor;
import io.gpuoperator.node.gpu.MigStrategySetting;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Everything the device plugin acts on, resolved from flags, environment and config file (in that
 * order of precedence) by {@link #resolve}. The settings are declared once below, with the
 * original's flag, variable and config-file names; the command's options come from them.
 *
 * @param migStrategy how MIG devices become resources
 * @param failOnInitError exit when the GPUs cannot be read, instead of waiting with no resources
 * @param driverRoot where the driver's files are on the host ({@code nvidiaDriverRoot})
 * @param devRoot where the device nodes are on the host ({@code nvidiaDevRoot}; driver root when
 *     unset)
 * @param deviceListStrategies how Allocate passes the device list (one or more)
 * @param deviceIdStrategy UUIDs or indices in the Allocate response
 * @param passDeviceSpecs add device nodes to the Allocate response
 * @param cdiAnnotationPrefix prefix of the CDI annotation key
 * @param allocationPolicy how replicas are chosen by GetPreferredAllocation
 * @param sharing the replicated resources
 * @param mpsRoot host directory of the MPS daemons' pipes and shm
 * @param gdrcopyEnabled add {@code NVIDIA_GDRCOPY=enabled}
 * @param gdsEnabled add {@code NVIDIA_GDS=enabled}
 * @param mofedEnabled add {@code NVIDIA_MOFED=enabled}
 */
public record DevicePluginSettings(
    MigStrategy migStrategy,
    boolean failOnInitError,
    Path driverRoot,
    Path devRoot,
    List<DeviceListStrategy> deviceListStrategies,
    DeviceIdStrategy deviceIdStrategy,
    boolean passDeviceSpecs,
    String cdiAnnotationPrefix,
    AllocationPolicy allocationPolicy,
    Sharing sharing,
    Path mpsRoot,
    boolean gdrcopyEnabled,
    boolean gdsEnabled,
    boolean mofedEnabled) {

  public static final Setting<MigStrategy> MIG_STRATEGY =
      MigStrategySetting.BASE
          .env("MIG_STRATEGY")
          .help("How MIG devices are advertised: ignored, as nvidia.com/gpu, or per profile.");
  public static final Setting<Boolean> FAIL_ON_INIT_ERROR =
      Setting.bool("--fail-on-init-error")
          .env("FAIL_ON_INIT_ERROR")
          .field("flags.failOnInitError")
          .help("Exit when the GPUs cannot be read, instead of waiting with no resources.")
          .orElse(true);
  public static final Setting<Path> DRIVER_ROOT =
      Setting.of("--nvidia-driver-root", Parse::path)
          .env("NVIDIA_DRIVER_ROOT")
          .field("flags.nvidiaDriverRoot")
          .label("DIR")
          .help("Where the driver is installed on the host.")
          .orElse(Path.of("/"));
  public static final Setting<Path> DEV_ROOT =
      Setting.of("--nvidia-dev-root", Parse::path)
          .env("NVIDIA_DEV_ROOT")
          .field("flags.nvidiaDevRoot")
          .label("DIR")
          .help("Where the device nodes are on the host.")
          .orElseDescribed("the driver root");
  public static final Setting<Boolean> PASS_DEVICE_SPECS =
      Setting.bool("--pass-device-specs")
          .env("PASS_DEVICE_SPECS")
          .field("flags.plugin.passDeviceSpecs")
          .help("Add the device nodes to Allocate answers.")
          .orElse(false);
  public static final Setting<List<DeviceListStrategy>> DEVICE_LIST_STRATEGY =
      Setting.of("--device-list-strategy", DevicePluginSettings::strategies)
          .env("DEVICE_LIST_STRATEGY")
          .field("flags.plugin.deviceListStrategy")
          .label("STRATEGY[,STRATEGY]")
          .help("How Allocate passes devices: envvar, volume-mounts, cdi-annotations, cdi-cri.")
          .orElse(List.of(DeviceListStrategy.ENVVAR), "envvar")
          .format(l -> String.join(",", l.stream().map(DeviceListStrategy::value).toList()));
  public static final Setting<DeviceIdStrategy> DEVICE_ID_STRATEGY =
      Setting.of("--device-id-strategy", DeviceIdStrategy::parse)
          .env("DEVICE_ID_STRATEGY")
          .field("flags.plugin.deviceIDStrategy")
          .label("uuid|index")
          .help("Device IDs in Allocate answers.")
          .orElse(DeviceIdStrategy.UUID, "uuid");
  public static final Setting<String> CDI_ANNOTATION_PREFIX =
      Setting.of("--cdi-annotation-prefix", DevicePluginSettings::cdiPrefix)
          .env("CDI_ANNOTATION_PREFIX")
          .field("flags.plugin.cdiAnnotationPrefix")
          .label("PREFIX")
          .help("Prefix of the CDI annotation keys (a DNS subdomain and '/').")
          .orElse("cdi.k8s.io/");
  public static final Setting<AllocationPolicy> ALLOCATION_POLICY =
      Setting.of("--shared-devices-allocation-policy", AllocationPolicy::parse)
          .env("SHARED_DEVICES_ALLOCATION_POLICY")
          .field("flags.plugin.sharedDevicesAllocationPolicy")
          .label("distributed|packed")
          .help("How replicas of shared devices are chosen.")
          .orElse(AllocationPolicy.DISTRIBUTED, "distributed");
  public static final Setting<Path> MPS_ROOT =
      Setting.of("--mps-root", Parse::path)
          .env("MPS_ROOT")
          .field("flags.mpsRoot")
          .label("DIR")
          .help("Host directory of the MPS daemons' pipes and shared memory.");
  public static final Setting<Boolean> GDRCOPY_ENABLED =
      Setting.bool(null).env("GDRCOPY_ENABLED").field("flags.gdrcopyEnabled").orElse(false);
  public static final Setting<Boolean> GDS_ENABLED =
      Setting.bool(null).env("GDS_ENABLED").field("flags.gdsEnabled").orElse(false);
  public static final Setting<Boolean> MOFED_ENABLED =
      Setting.bool(null).env("MOFED_ENABLED").field("flags.mofedEnabled").orElse(false);
  public static final Setting<Path> KUBELET_SOCKET =
      Setting.of("--kubelet-socket", Parse::path)
          .env("KUBELET_SOCKET")
          .label("FILE")
          .help("The kubelet's registration socket.")
          .orElse(Path.of(DevicePluginConstants.KUBELET_SOCKET));
  public static final Setting<Path> CDI_SPEC_DIR =
      Setting.of("--cdi-spec-dir", Parse::path)
          .env("CDI_SPEC_DIR")
          .label("DIR")
          .help("Where the plugin writes its CDI spec when a CDI strategy is used.")
          .orElse(Path.of("/var/run/cdi"));
  public static final Setting<Path> CONFIG_FILE =
      Setting.of("--config-file", Parse::path)
          .env("CONFIG_FILE")
          .label("FILE")
          .help("The config file (version: v1).");
  public static final Setting<Path> CONFIG_DIR =
      Setting.of("--config-dir", Parse::path)
          .env("CONFIG_FILE_SRCDIR")
          .label("DIR")
          .help(
              "Directory of named configs; the node label "
                  + PluginNames.CONFIG_LABEL
                  + " picks one.");
  public static final Setting<String> DEFAULT_CONFIG =
      Setting.string("--default-config")
          .env("DEFAULT_CONFIG")
          .label("NAME")
          .help("Config used when the node has no label.");

  /** Every setting, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          MIG_STRATEGY,
          FAIL_ON_INIT_ERROR,
          DRIVER_ROOT,
          DEV_ROOT,
          PASS_DEVICE_SPECS,
          DEVICE_LIST_STRATEGY,
          DEVICE_ID_STRATEGY,
          CDI_ANNOTATION_PREFIX,
          ALLOCATION_POLICY,
          MPS_ROOT,
          KUBELET_SOCKET,
          CDI_SPEC_DIR,
          CONFIG_FILE,
          CONFIG_DIR,
          DEFAULT_CONFIG,
          HealthMonitor.RECOVERY_PERIOD,
          GDRCOPY_ENABLED,
          GDS_ENABLED,
          MOFED_ENABLED);

  public DevicePluginSettings {
    deviceListStrategies = List.copyOf(deviceListStrategies);
    if (deviceListStrategies.isEmpty()) {
      throw new IllegalArgumentException("deviceListStrategy: at least one strategy is required");
    }
    devRoot = devRoot == null ? driverRoot : devRoot;
  }

  /**
   * Resolves the settings: flag, then environment, then the config file {@code settings} carry (its
   * {@code sharing} from {@code config}), then the default.
   *
   * @param config the parsed config file, or null for none
   */
  public static DevicePluginSettings resolve(Settings s, DevicePluginConfig config) {
    Path driverRoot = s.get(DRIVER_ROOT);
    Path devRoot = s.get(DEV_ROOT);
    return new DevicePluginSettings(
        s.get(MIG_STRATEGY),
        s.get(FAIL_ON_INIT_ERROR),
        driverRoot,
        devRoot == null ? driverRoot : devRoot,
        s.get(DEVICE_LIST_STRATEGY),
        s.get(DEVICE_ID_STRATEGY),
        s.get(PASS_DEVICE_SPECS),
        s.get(CDI_ANNOTATION_PREFIX),
        s.get(ALLOCATION_POLICY),
        sharing(config),
        s.get(MPS_ROOT),
        s.get(GDRCOPY_ENABLED),
        s.get(GDS_ENABLED),
        s.get(MOFED_ENABLED));
  }

  /** The sharing section of a config file: MPS wins over time-slicing, as in the original. */
  static Sharing sharing(DevicePluginConfig config) {
    if (config == null) {
      return Sharing.NONE;
    }
    ReplicatedResources active = config.activeSharing();
    if (active == null) {
      return Sharing.NONE;
    }
    SharingStrategy strategy =
        "mps".equals(config.sharingStrategy()) ? SharingStrategy.MPS : SharingStrategy.TIME_SLICING;
    Map<String, Integer> replicas = new TreeMap<>();
    for (ReplicatedResource r : active.resources()) {
      if (r.replicas() > 1) {
        replicas.put(r.name(), r.replicas());
      }
    }
    boolean failGreaterThanOne =
        active.failRequestsGreaterThanOne() != null
            ? active.failRequestsGreaterThanOne()
            : strategy == SharingStrategy.MPS;
    return new Sharing(strategy, active.renameByDefault(), failGreaterThanOne, replicas);
  }

  /** A comma-separated list of device-list strategies, at least one. */
  static List<DeviceListStrategy> strategies(String v) {
    List<DeviceListStrategy> out = new ArrayList<>();
    for (String part : v.split(",")) {
      if (!part.isBlank()) {
        DeviceListStrategy s = DeviceListStrategy.parse(part.strip());
        if (!out.contains(s)) {
          out.add(s);
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "expected at least one of envvar, volume-mounts, cdi-annotations or cdi-cri, got "
              + Values.quote(v));
    }
    return out;
  }

  /** A CDI annotation prefix: a DNS subdomain and '/', so that keys are valid annotation keys. */
  static String cdiPrefix(String v) {
    if (!v.endsWith("/")
        || v.length() > 254
        || !v.substring(0, v.length() - 1)
            .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")) {
      throw new IllegalArgumentException(
          "expected a DNS subdomain followed by '/', such as cdi.k8s.io/, got " + Values.quote(v));
    }
    return v;
  }

  /** The original's defaults (no config file, no flags, no env): each setting's own default. */
  public static DevicePluginSettings defaults() {
    return resolve(Settings.ofEnv(Map.of()), null);
  }

  /** True when every device-list strategy is a CDI one (then no env, mounts or device specs). */
  public boolean onlyCdi() {
    return deviceListStrategies.stream().allMatch(DeviceListStrategy::cdi);
  }

  /** A copy with another sharing section. */
  public DevicePluginSettings withSharing(Sharing s) {
    return with(c -> c.sharing = s);
  }

  /** A copy with another MIG strategy. */
  public DevicePluginSettings withMigStrategy(MigStrategy m) {
    return with(c -> c.migStrategy = m);
  }

  /** A copy with other device-list strategies, ID strategy and device-spec setting. */
  public DevicePluginSettings withDeviceList(
      List<DeviceListStrategy> strategies, DeviceIdStrategy ids, boolean specs) {
    return with(
        c -> {
          c.deviceListStrategies = strategies;
          c.deviceIdStrategy = ids;
          c.passDeviceSpecs = specs;
        });
  }

  private DevicePluginSettings with(Consumer<Copy> change) {
    Copy c = new Copy(this);
    change.accept(c);
    return c.build();
  }

  /**
   * The fields of a copy being changed: the withers name only what they change, so a new field is
   * added here and in the record, not in every wither.
   */
  private static final class Copy {
    MigStrategy migStrategy;
    boolean failOnInitError;
    Path driverRoot;
    Path devRoot;
    List<DeviceListStrategy> deviceListStrategies;
    DeviceIdStrategy deviceIdStrategy;
    boolean passDeviceSpecs;
    String cdiAnnotationPrefix;
    AllocationPolicy allocationPolicy;
    Sharing sharing;
    Path mpsRoot;
    boolean gdrcopyEnabled;
    boolean gdsEnabled;
    boolean mofedEnabled;

    Copy(DevicePluginSettings s) {
      migStrategy = s.migStrategy;
      failOnInitError = s.failOnInitError;
      driverRoot = s.driverRoot;
      devRoot = s.devRoot;
      deviceListStrategies = s.deviceListStrategies;
      deviceIdStrategy = s.deviceIdStrategy;
      passDeviceSpecs = s.passDeviceSpecs;
      cdiAnnotationPrefix = s.cdiAnnotationPrefix;
      allocationPolicy = s.allocationPolicy;
      sharing = s.sharing;
      mpsRoot = s.mpsRoot;
      gdrcopyEnabled = s.gdrcopyEnabled;
      gdsEnabled = s.gdsEnabled;
      mofedEnabled = s.mofedEnabled;
    }

    DevicePluginSettings build() {
      return new DevicePluginSettings(
          migStrategy,
          failOnInitError,
          driverRoot,
          devRoot,
          deviceListStrategies,
          deviceIdStrategy,
          passDeviceSpecs,
          cdiAnnotationPrefix,
          allocationPolicy,
          sharing,
          mpsRoot,
          gdrcopyEnabled,
          gdsEnabled,
          mofedEnabled);
    }
  }
}

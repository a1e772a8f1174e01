package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfig.ReplicatedResource;
import io.gpuoperator.node.config.DevicePluginConfig.ReplicatedResources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Resolves {@link DevicePluginSettings} with the original's precedence: command-line flag, then
 * environment variable (both passed in one map keyed by the env names, flags already laid over the
 * environment), then the config file, then the default.
 */
public final class SettingsResolver {
  private SettingsResolver() {}

  /**
   * @param config the parsed config file, or null for none
   * @param env environment variables and flags, keyed by the env names of {@link PluginNames}
   */
  public static DevicePluginSettings resolve(DevicePluginConfig config, Map<String, String> env) {
    DevicePluginConfig.Flags flags = config == null ? null : config.flags();
    DevicePluginConfig.PluginFlags plugin = flags == null ? null : flags.plugin();
    DevicePluginSettings d = DevicePluginSettings.defaults();

    MigStrategy mig =
        pick(
            env,
            PluginNames.ENV_MIG_STRATEGY,
            flags == null ? null : flags.migStrategy(),
            d.migStrategy(),
            v -> MigStrategy.parse(PluginNames.ENV_MIG_STRATEGY, v));
    boolean failOnInit =
        pick(
            env,
            PluginNames.ENV_FAIL_ON_INIT_ERROR,
            flags == null ? null : str(flags.failOnInitError()),
            d.failOnInitError(),
            v -> bool(PluginNames.ENV_FAIL_ON_INIT_ERROR, v));
    Path driverRoot =
        pick(
            env,
            PluginNames.ENV_NVIDIA_DRIVER_ROOT,
            flags == null ? null : flags.nvidiaDriverRoot(),
            d.driverRoot(),
            Path::of);
    Path devRoot =
        pick(
            env,
            PluginNames.ENV_NVIDIA_DEV_ROOT,
            flags == null ? null : flags.nvidiaDevRoot(),
            driverRoot,
            Path::of);
    List<DeviceListStrategy> lists =
        pick(
            env,
            PluginNames.ENV_DEVICE_LIST_STRATEGY,
            plugin == null || plugin.deviceListStrategy() == null
                ? null
                : String.join(",", plugin.deviceListStrategy()),
            d.deviceListStrategies(),
            SettingsResolver::strategies);
    DeviceIdStrategy ids =
        pick(
            env,
            PluginNames.ENV_DEVICE_ID_STRATEGY,
            plugin == null ? null : plugin.deviceIdStrategy(),
            d.deviceIdStrategy(),
            v -> DeviceIdStrategy.parse(PluginNames.ENV_DEVICE_ID_STRATEGY, v));
    boolean specs =
        pick(
            env,
            PluginNames.ENV_PASS_DEVICE_SPECS,
            plugin == null ? null : str(plugin.passDeviceSpecs()),
            d.passDeviceSpecs(),
            v -> bool(PluginNames.ENV_PASS_DEVICE_SPECS, v));
    String cdiPrefix =
        pick(
            env,
            PluginNames.ENV_CDI_ANNOTATION_PREFIX,
            plugin == null ? null : plugin.cdiAnnotationPrefix(),
            d.cdiAnnotationPrefix(),
            v -> v);
    AllocationPolicy policy =
        pick(
            env,
            PluginNames.ENV_SHARED_DEVICES_ALLOCATION_POLICY,
            plugin == null ? null : plugin.sharedDevicesAllocationPolicy(),
            d.allocationPolicy(),
            v -> AllocationPolicy.parse(PluginNames.ENV_SHARED_DEVICES_ALLOCATION_POLICY, v));
    Path mpsRoot =
        pick(env, PluginNames.ENV_MPS_ROOT, flags == null ? null : flags.mpsRoot(), null, Path::of);
    boolean gdrcopy =
        pick(
            env,
            PluginNames.ENV_GDRCOPY_ENABLED,
            flags == null ? null : str(flags.gdrcopyEnabled()),
            false,
            v -> bool(PluginNames.ENV_GDRCOPY_ENABLED, v));
    boolean gds =
        pick(
            env,
            PluginNames.ENV_GDS_ENABLED,
            flags == null ? null : str(flags.gdsEnabled()),
            false,
            v -> bool(PluginNames.ENV_GDS_ENABLED, v));
    boolean mofed =
        pick(
            env,
            PluginNames.ENV_MOFED_ENABLED,
            flags == null ? null : str(flags.mofedEnabled()),
            false,
            v -> bool(PluginNames.ENV_MOFED_ENABLED, v));
    return new DevicePluginSettings(
        mig,
        failOnInit,
        driverRoot,
        devRoot,
        lists,
        ids,
        specs,
        cdiPrefix,
        policy,
        sharing(config),
        mpsRoot,
        gdrcopy,
        gds,
        mofed);
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

  private static <T> T pick(
      Map<String, String> env, String name, String fromFile, T dflt, Function<String, T> parse) {
    String v = env.get(name);
    if (v != null && !v.isBlank()) {
      return parse.apply(v.trim());
    }
    if (fromFile != null) {
      return parse.apply(fromFile);
    }
    return dflt;
  }

  private static String str(Boolean b) {
    return b == null ? null : b.toString();
  }

  private static boolean bool(String name, String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default ->
          throw new IllegalArgumentException(name + ": expected true or false, got '" + v + "'");
    };
  }

  private static List<DeviceListStrategy> strategies(String v) {
    List<DeviceListStrategy> out = new ArrayList<>();
    for (String part : v.split(",")) {
      if (!part.isBlank()) {
        DeviceListStrategy s =
            DeviceListStrategy.parse(PluginNames.ENV_DEVICE_LIST_STRATEGY, part.trim());
        if (!out.contains(s)) {
          out.add(s);
        }
      }
    }
    return out;
  }
}

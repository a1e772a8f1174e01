package io.gpuoperator.node.deviceplugin;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything the device plugin acts on, resolved from flags, environment and config file (in that
 * order of precedence).
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

  public DevicePluginSettings {
    deviceListStrategies = List.copyOf(deviceListStrategies);
    if (deviceListStrategies.isEmpty()) {
      throw new IllegalArgumentException("deviceListStrategy: at least one strategy is required");
    }
    devRoot = devRoot == null ? driverRoot : devRoot;
  }

  /** The original's defaults (no config file, no flags, no env). */
  public static DevicePluginSettings defaults() {
    return new DevicePluginSettings(
        MigStrategy.NONE,
        true,
        Path.of("/"),
        null,
        List.of(DeviceListStrategy.ENVVAR),
        DeviceIdStrategy.UUID,
        false,
        "cdi.k8s.io/",
        AllocationPolicy.DISTRIBUTED,
        Sharing.NONE,
        null,
        false,
        false,
        false);
  }

  /** True when every device-list strategy is a CDI one (then no env, mounts or device specs). */
  public boolean onlyCdi() {
    return deviceListStrategies.stream().allMatch(DeviceListStrategy::cdi);
  }

  /** A copy with another sharing section. */
  public DevicePluginSettings withSharing(Sharing s) {
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
        s,
        mpsRoot,
        gdrcopyEnabled,
        gdsEnabled,
        mofedEnabled);
  }

  /** A copy with another MIG strategy. */
  public DevicePluginSettings withMigStrategy(MigStrategy m) {
    return new DevicePluginSettings(
        m,
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

  /** A copy with other device-list strategies, ID strategy and device-spec setting. */
  public DevicePluginSettings withDeviceList(
      List<DeviceListStrategy> strategies, DeviceIdStrategy ids, boolean specs) {
    return new DevicePluginSettings(
        migStrategy,
        failOnInitError,
        driverRoot,
        devRoot,
        strategies,
        ids,
        specs,
        cdiAnnotationPrefix,
        allocationPolicy,
        sharing,
        mpsRoot,
        gdrcopyEnabled,
        gdsEnabled,
        mofedEnabled);
  }
}

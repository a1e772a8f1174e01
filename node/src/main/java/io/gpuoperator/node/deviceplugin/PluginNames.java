package io.gpuoperator.node.deviceplugin;

/** Names the device plugin shares with the original: resources, env, paths, labels, CDI. */
public final class PluginNames {
  /** Prefix of every resource the plugin advertises. */
  public static final String RESOURCE_PREFIX = "nvidia.com/";

  /** Whole GPUs (and MIG devices under the single strategy). */
  public static final String GPU_RESOURCE = "nvidia.com/gpu";

  /** Prefix of the per-profile resources of the mixed MIG strategy. */
  public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";

  /** Suffix of a shared resource renamed by {@code renameByDefault}. */
  public static final String SHARED_SUFFIX = ".shared";

  /** Maximum length of a resource name (after the prefix), as validated by the original. */
  public static final int MAX_RESOURCE_NAME_LENGTH = 63;

  /** Separator between a device UUID and its replica number. */
  public static final String REPLICA_SEPARATOR = "::";

  /** Node label selecting a named config from the config directory. */
  public static final String CONFIG_LABEL = "nvidia.com/device-plugin.config";

  /** The env var the container runtime reads the device list from. */
  public static final String VISIBLE_DEVICES_ENV = "NVIDIA_VISIBLE_DEVICES";

  /** Where the volume-mounts strategy puts one (empty) file per device. */
  public static final String VOLUME_MOUNTS_CONTAINER_ROOT = "/var/run/nvidia-container-devices";

  /** The host file mounted for each device by the volume-mounts strategy. */
  public static final String VOLUME_MOUNTS_HOST_PATH = "/dev/null";

  /** CDI vendor of the devices in the plugin's own CDI spec. */
  public static final String CDI_VENDOR = "k8s.device-plugin.nvidia.com";

  /** CDI class of GPU and MIG devices. */
  public static final String CDI_CLASS = "gpu";

  /** Key of the CDI annotation, after the configured prefix and before a random UUID. */
  public static final String CDI_ANNOTATION_KEY = "nvidia-device-plugin_";

  /** Optional control device nodes, passed with device specs when they exist. */
  public static final String[] CONTROL_DEVICES =
      io.gpuoperator.node.cdi.DeviceNodes.CONTROL.toArray(String[]::new);

  /** MPS pipe directory inside the container, under which each resource has its own. */
  public static final String MPS_CONTAINER_ROOT = "/mps";

  private PluginNames() {}
}

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

  // Environment variables (the original's names).
  public static final String ENV_MIG_STRATEGY = "MIG_STRATEGY";
  public static final String ENV_FAIL_ON_INIT_ERROR = "FAIL_ON_INIT_ERROR";
  public static final String ENV_NVIDIA_DRIVER_ROOT = "NVIDIA_DRIVER_ROOT";
  public static final String ENV_NVIDIA_DEV_ROOT = "NVIDIA_DEV_ROOT";
  public static final String ENV_PASS_DEVICE_SPECS = "PASS_DEVICE_SPECS";
  public static final String ENV_DEVICE_LIST_STRATEGY = "DEVICE_LIST_STRATEGY";
  public static final String ENV_DEVICE_ID_STRATEGY = "DEVICE_ID_STRATEGY";
  public static final String ENV_CDI_ANNOTATION_PREFIX = "CDI_ANNOTATION_PREFIX";
  public static final String ENV_SHARED_DEVICES_ALLOCATION_POLICY =
      "SHARED_DEVICES_ALLOCATION_POLICY";
  public static final String ENV_MPS_ROOT = "MPS_ROOT";
  public static final String ENV_GDRCOPY_ENABLED = "GDRCOPY_ENABLED";
  public static final String ENV_GDS_ENABLED = "GDS_ENABLED";
  public static final String ENV_MOFED_ENABLED = "MOFED_ENABLED";
  public static final String ENV_KUBELET_SOCKET = "KUBELET_SOCKET";
  public static final String ENV_CONFIG_FILE = "CONFIG_FILE";
  public static final String ENV_CDI_SPEC_DIR = "CDI_SPEC_DIR";
  public static final String ENV_DISABLE_HEALTHCHECKS = "DP_DISABLE_HEALTHCHECKS";
  public static final String ENV_ENABLE_HEALTHCHECKS = "DP_ENABLE_HEALTHCHECKS";
  public static final String ENV_HEALTH_RECOVERY_PERIOD = "DP_HEALTH_RECOVERY_PERIOD";
  public static final String ENV_NODE_NAME = "NODE_NAME";
  public static final String ENV_CONFIG_DIR = "CONFIG_FILE_SRCDIR";
  public static final String ENV_DEFAULT_CONFIG = "DEFAULT_CONFIG";

  private PluginNames() {}
}

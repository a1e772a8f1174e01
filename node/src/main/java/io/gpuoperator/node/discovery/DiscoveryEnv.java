package io.gpuoperator.node.discovery;

/** Environment variables of {@code gpu-operator feature-discovery}, with the original's names. */
public final class DiscoveryEnv {
  public static final String MIG_STRATEGY = "GFD_MIG_STRATEGY";
  public static final String MIG_STRATEGY_SHARED = "MIG_STRATEGY";
  public static final String FAIL_ON_INIT_ERROR = "GFD_FAIL_ON_INIT_ERROR";
  public static final String ONESHOT = "GFD_ONESHOT";
  public static final String NO_TIMESTAMP = "GFD_NO_TIMESTAMP";
  public static final String SLEEP_INTERVAL = "GFD_SLEEP_INTERVAL";
  public static final String OUTPUT_FILE = "GFD_OUTPUT_FILE";
  public static final String MACHINE_TYPE_FILE = "GFD_MACHINE_TYPE_FILE";
  public static final String CONFIG_FILE = "GFD_CONFIG_FILE";
  public static final String CONFIG_FILE_SHARED = "CONFIG_FILE";
  public static final String USE_NODE_FEATURE_API = "GFD_USE_NODE_FEATURE_API";

  /** This project's: where labels go (auto, file, node-feature, node-labels). */
  public static final String OUTPUT = "GFD_OUTPUT";

  public static final String NODE_NAME = "NODE_NAME";
  public static final String NAMESPACE = "POD_NAMESPACE";
  public static final String KUBECONFIG = "KUBECONFIG";

  /** This project's: nvml or simulated. */
  public static final String BACKEND = "GPU_BACKEND";

  /** This project's: node profile (built-in name or file) of the simulated backend. */
  public static final String NODE_PROFILE = "GPU_NODE_PROFILE";

  /** This project's: libnvidia-ml.so.1 to load instead of the loader's search path. */
  public static final String NVML_LIBRARY = "NVML_LIBRARY";

  /** This project's: sysfs root of the GPUs for NVML. */
  public static final String SYSFS_ROOT = "GFD_SYSFS_ROOT";

  public static final String DEFAULT_OUTPUT_FILE =
      "/etc/kubernetes/node-feature-discovery/features.d/gfd";
  public static final String DEFAULT_MACHINE_TYPE_FILE = "/sys/class/dmi/id/product_name";
  public static final String DEFAULT_SLEEP_INTERVAL = "60s";

  private DiscoveryEnv() {}
}

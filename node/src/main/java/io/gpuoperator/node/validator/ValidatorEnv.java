package io.gpuoperator.node.validator;

/**
 * Environment variables the validator reads (the original's names where it has one); the node,
 * backend and profile variables are the node agents' shared ones ({@link
 * io.gpuoperator.node.agent.NodeAgentOptions}).
 */
public final class ValidatorEnv {
  private ValidatorEnv() {}

  public static final String COMPONENT = "COMPONENT";
  public static final String WITH_WAIT = "WITH_WAIT";
  public static final String VALIDATIONS_DIR = "VALIDATIONS_DIR";
  public static final String NVIDIA_DRIVER_ROOT = "NVIDIA_DRIVER_ROOT";
  public static final String DRIVER_ROOT_CTR_PATH = "DRIVER_ROOT_CTR_PATH";

  /** Where the operator mounts a custom {@code hostPaths.driverInstallDir} (the original's). */
  public static final String DRIVER_INSTALL_DIR_CTR_PATH = "DRIVER_INSTALL_DIR_CTR_PATH";

  public static final String NVIDIA_DEV_ROOT = "NVIDIA_DEV_ROOT";
  public static final String DISABLE_DEV_CHAR_SYMLINK_CREATION =
      "DISABLE_DEV_CHAR_SYMLINK_CREATION";

  public static final String RUNTIME = "RUNTIME";
  public static final String RUNTIME_CONFIG = "RUNTIME_CONFIG";
  public static final String RUNTIME_DROP_IN_CONFIG = "RUNTIME_DROP_IN_CONFIG";
  public static final String NVIDIA_RUNTIME_NAME = "NVIDIA_RUNTIME_NAME";
  public static final String CDI_ENABLED = "CDI_ENABLED";
  public static final String CDI_SPEC_DIR = "CDI_SPEC_DIR";
  public static final String OPERATOR_NAMESPACE = "OPERATOR_NAMESPACE";
  public static final String CUDA_WORKLOAD_IMAGE = "CUDA_WORKLOAD_IMAGE";
  public static final String VALIDATION_TIMEOUT = "VALIDATION_TIMEOUT";
  public static final String SLEEP_INTERVAL = "SLEEP_INTERVAL";

  public static final String DEFAULT_VALIDATIONS_DIR = "/run/nvidia/validations";
  public static final String DEFAULT_DRIVER_ROOT = "/run/nvidia/driver";
  public static final String DEFAULT_RUNTIME_CONFIG = "/etc/containerd/config.toml";

  /** Where the toolkit puts containerd's drop-in by default (the original's path too). */
  public static final String DEFAULT_RUNTIME_DROP_IN_CONFIG =
      "/etc/containerd/conf.d/99-nvidia.toml";

  public static final String DEFAULT_CDI_DIR = "/var/run/cdi";
  public static final String DEFAULT_NAMESPACE = "gpu-operator";
  public static final String DEFAULT_CUDA_IMAGE =
      io.gpuoperator.api.OperandImages.nvidiaDefault(
          io.gpuoperator.api.OperandImages.CUDA_WORKLOAD);

  /** The driver container's own readiness file in the validations directory. */
  public static final String DRIVER_CONTAINER_READY = ".driver-ctr-ready";

  /** Extended resources that prove the device plugin works. */
  public static final String GPU_RESOURCE = "nvidia.com/gpu";

  public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";
}

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

  /** GPUDirect Storage on: the driver container loads {@code nvidia_fs} (the original's name). */
  public static final String GDS_ENABLED = "GDS_ENABLED";

  /** GDRCopy on: the driver container loads {@code gdrdrv}. */
  public static final String GDRCOPY_ENABLED = "GDRCOPY_ENABLED";

  /** GPUDirect RDMA on: the driver container loads {@code nvidia_peermem}; MOFED is checked. */
  public static final String GPU_DIRECT_RDMA_ENABLED = "GPU_DIRECT_RDMA_ENABLED";

  /** MOFED is installed on the host, not by NVIDIA's network operator's driver container. */
  public static final String USE_HOST_MOFED = "USE_HOST_MOFED";

  /** The workload a node runs when it has no {@code nvidia.com/gpu.workload.config} label. */
  public static final String DEFAULT_GPU_WORKLOAD_CONFIG = "DEFAULT_GPU_WORKLOAD_CONFIG";

  /** Where /proc, /sys and /run/mellanox are read and the host's / is mounted at host/. */
  public static final String SYSTEM_ROOT = "VALIDATOR_SYSTEM_ROOT";

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

  /** The CC manager's own readiness file in the validations directory. */
  public static final String CC_MANAGER_CONTAINER_READY = ".cc-manager-ctr-ready";

  /** The sandbox steps' record of the node's workload: one line, the workload's name. */
  public static final String WORKLOAD_TYPE = "workload-type";

  /** The readiness file of NVIDIA's network operator's MOFED driver container, under the root. */
  public static final String MOFED_DRIVER_READY = "run/mellanox/drivers/.driver-ready";

  /** NFD's label on a node with a Mellanox (vendor 15b3) PCI device. */
  public static final String MELLANOX_LABEL = "feature.node.kubernetes.io/pci-15b3.present";

  /** GFD's label on a node whose GPUs can run in confidential-computing mode. */
  public static final String CC_CAPABLE_LABEL = "nvidia.com/cc.capable";

  /** Extended resources that prove the device plugin works. */
  public static final String GPU_RESOURCE = "nvidia.com/gpu";

  public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";
}

package io.gpuoperator.operator.operand;

/** Operand names: manifest folders, {@code nvidia.com/gpu.deploy.<name>} suffixes, image keys. */
public final class OperandNames {
  public static final String PRE_REQUISITES = "pre-requisites";
  public static final String OPERATOR_METRICS = "operator-metrics";
  public static final String DRIVER = "driver";
  public static final String DRIVER_MANAGER = "driver-manager";
  public static final String CONTAINER_TOOLKIT = "container-toolkit";
  public static final String OPERATOR_VALIDATOR = "operator-validator";
  public static final String DEVICE_PLUGIN = "device-plugin";
  public static final String MPS_CONTROL_DAEMON = "mps-control-daemon";
  public static final String DRA_DRIVER = "dra-driver";
  public static final String DCGM = "dcgm";
  public static final String DCGM_EXPORTER = "dcgm-exporter";
  public static final String GPU_FEATURE_DISCOVERY = "gpu-feature-discovery";
  public static final String MIG_MANAGER = "mig-manager";
  public static final String NODE_STATUS_EXPORTER = "node-status-exporter";
  public static final String VGPU_MANAGER = "vgpu-manager";
  public static final String VGPU_DEVICE_MANAGER = "vgpu-device-manager";
  public static final String SANDBOX_VALIDATOR = "sandbox-validator";
  public static final String VFIO_MANAGER = "vfio-manager";
  public static final String SANDBOX_DEVICE_PLUGIN = "sandbox-device-plugin";
  public static final String KATA_SANDBOX_DEVICE_PLUGIN = "kata-sandbox-device-plugin";
  public static final String CC_MANAGER = "cc-manager";

  /** Not an operand of the policy: the DaemonSet of node-agents mode ({@code NODE_AGENTS}). */
  public static final String NODE_AGENTS = "node-agents";

  private OperandNames() {}
}

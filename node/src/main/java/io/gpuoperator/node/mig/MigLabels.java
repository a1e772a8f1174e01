package io.gpuoperator.node.mig;

import java.util.List;

/** The node labels, values and pod selectors of the original's MIG-manager protocol. */
public final class MigLabels {
  private MigLabels() {}

  /** The configuration the node should have (a name in the MIG config file). */
  public static final String CONFIG = "nvidia.com/mig.config";

  /** Progress of applying {@link #CONFIG}. */
  public static final String STATE = "nvidia.com/mig.config.state";

  public static final String PENDING = "pending";
  public static final String REBOOTING = "rebooting";
  public static final String SUCCESS = "success";
  public static final String FAILED = "failed";

  /** The value GPU clients' deploy labels get while MIG changes. */
  public static final String PAUSED = "paused-for-mig-change";

  /** Deploy labels of the GPU clients paused during a change (the original's list). */
  public static final List<String> CLIENT_DEPLOY_LABELS =
      List.of(
          "nvidia.com/gpu.deploy.device-plugin",
          "nvidia.com/gpu.deploy.gpu-feature-discovery",
          "nvidia.com/gpu.deploy.dcgm-exporter",
          "nvidia.com/gpu.deploy.dcgm",
          "nvidia.com/gpu.deploy.nvsm",
          "nvidia.com/gpu.deploy.client");

  /** {@code app} labels of the client pods that must be gone before the GPUs change. */
  public static final List<String> CLIENT_APPS =
      List.of(
          "nvidia-device-plugin-daemonset",
          "gpu-feature-discovery",
          "nvidia-dcgm-exporter",
          "nvidia-dcgm");

  /** Validation pods deleted before a change (they hold GPUs). */
  public static final List<String> WORKLOAD_VALIDATOR_APPS =
      List.of("nvidia-cuda-validator", "nvidia-device-plugin-validator");

  /** The validator pod deleted after a change, so the node's validations run again. */
  public static final String OPERATOR_VALIDATOR_APP = "nvidia-operator-validator";
}

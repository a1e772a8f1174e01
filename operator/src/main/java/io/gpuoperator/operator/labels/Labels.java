package io.gpuoperator.operator.labels;

import java.util.List;

/** Node and object label keys, values and annotations the operator reads or owns. */
public final class Labels {
  /** Prefix of every NVIDIA label the operator manages on nodes. */
  public static final String NVIDIA_PREFIX = "nvidia.com/";

  /** Set to "true" on GPU nodes by the operator (or by our feature discovery's PCI fallback). */
  public static final String GPU_PRESENT = "nvidia.com/gpu.present";

  /** Prefix of the per-operand deploy labels; the suffix is the operand name. */
  public static final String DEPLOY_PREFIX = "nvidia.com/gpu.deploy.";

  /** Per-node kill switch: "false" removes every deploy label from the node. */
  public static final String DEPLOY_OPERANDS = DEPLOY_PREFIX + "operands";

  /** The node's workload type: container, vm-passthrough or vm-vgpu. */
  public static final String WORKLOAD_CONFIG = "nvidia.com/gpu.workload.config";

  /** Written by GPU feature discovery when a GPU supports MIG. */
  public static final String MIG_CAPABLE = "nvidia.com/mig.capable";

  /** The MIG layout the mig-manager applies. */
  public static final String MIG_CONFIG = "nvidia.com/mig.config";

  /** Written by GPU feature discovery: the GPU model. */
  public static final String GPU_PRODUCT = "nvidia.com/gpu.product";

  /** Prefix of every Node Feature Discovery label. */
  public static final String NFD_PREFIX = "feature.node.kubernetes.io/";

  /** NFD labels that mean "this node has an NVIDIA GPU" (vendor only, or class+vendor). */
  public static final List<String> NFD_GPU_LABELS =
      List.of(
          NFD_PREFIX + "pci-10de.present",
          NFD_PREFIX + "pci-0302_10de.present",
          NFD_PREFIX + "pci-0300_10de.present");

  /**
   * Written by our PCI discovery ({@code gpu-operator pci-discovery}) where no NFD runs: whether
   * the node has an NVIDIA GPU. Counts only on nodes without any NFD label.
   */
  public static final String PCI_PRESENT = io.gpuoperator.node.discovery.PciDiscovery.LABEL;

  /** NFD OS labels the driver image tag is derived from. */
  public static final String NFD_OS_ID = NFD_PREFIX + "system-os_release.ID";

  public static final String NFD_OS_VERSION_ID = NFD_PREFIX + "system-os_release.VERSION_ID";

  public static final String NFD_KERNEL_FULL = NFD_PREFIX + "kernel-version.full";

  /**
   * The RHCOS (OSTree) version of an OpenShift node, which picks its Driver Toolkit image and
   * driver DaemonSet.
   */
  public static final String NFD_OSTREE_VERSION = NFD_PREFIX + "system-os_release.OSTREE_VERSION";

  public static final String TRUE = "true";
  public static final String FALSE = "false";

  /**
   * GPU models whose name marks them MIG-capable when feature discovery has not said (the
   * original's fallback; other MIG GPUs are known only through {@link #MIG_CAPABLE}).
   */
  public static final List<String> MIG_CAPABLE_PRODUCTS = List.of("A100", "A30", "H100");

  /** Set by the vGPU host driver; such a node is never MIG-capable. */
  public static final String VGPU_HOST_DRIVER_VERSION = "nvidia.com/vgpu.host-driver-version";

  /** The only default MIG layout the original writes on MIG-capable nodes. */
  public static final String MIG_CONFIG_ALL_DISABLED = "all-disabled";

  /** Node annotation for k8s-driver-manager: driver upgrades are managed on this node. */
  public static final String DRIVER_UPGRADE_ENABLED = "nvidia.com/gpu-driver-upgrade-enabled";

  /**
   * Node annotation: the GPU taint the operator added to the node ({@code key=value:Effect}, as
   * kubectl prints it). The operator removes no taint but this one unless the policy names the
   * taint ({@code spec.nodeTaint}), so a taint set by hand stays when the policy asks for none.
   */
  public static final String TAINT_OWNER = "nvidia.com/gpu-operator.taint";

  /** The deploy-label suffix of the device plugin. */
  public static final String DEVICE_PLUGIN = "device-plugin";

  /**
   * The deploy-label suffix of the DRA driver: on container nodes when the policy deploys it, and
   * never together with the device plugin's.
   */
  public static final String DRA_DRIVER = "dra-driver";

  /** Deploy-label suffixes (operand names) for workload type "container". */
  public static final List<String> CONTAINER_OPERANDS =
      List.of(
          "driver",
          "gpu-feature-discovery",
          "container-toolkit",
          DEVICE_PLUGIN,
          "dcgm",
          "dcgm-exporter",
          "node-status-exporter",
          "operator-validator",
          "client");

  /** The deploy-label suffix of the MIG manager, only set on MIG-capable container nodes. */
  public static final String MIG_MANAGER = "mig-manager";

  /** Deploy-label suffixes for workload type "vm-passthrough" (kubevirt mode). */
  public static final List<String> VM_PASSTHROUGH_OPERANDS =
      List.of(
          "sandbox-device-plugin",
          "sandbox-validator",
          "vfio-manager",
          "kata-manager",
          "cc-manager",
          "client");

  /** Deploy-label suffixes for workload type "vm-vgpu". */
  public static final List<String> VM_VGPU_OPERANDS =
      List.of(
          "sandbox-device-plugin",
          "vgpu-manager",
          "vgpu-device-manager",
          "sandbox-validator",
          "cc-manager",
          "client");

  /** In kata mode, vm-passthrough nodes run the kata flavour of the sandbox device plugin. */
  public static final String KATA_SANDBOX_DEVICE_PLUGIN = "kata-sandbox-device-plugin";

  /** Deploy-label suffixes of the DRA stack (GPUCluster), removed like the others. */
  public static final List<String> DRA_OPERANDS =
      List.of(DRA_DRIVER, "dra-validator", "dcgm-dra", "dcgm-exporter-dra");

  // Labels on the objects the operator renders (ownership and hash: ManagedObjects).

  /** The label operands are selected by; never overridden by daemonsets.labels. */
  public static final String APP = "app";

  public static final String PART_OF = "app.kubernetes.io/part-of";

  private Labels() {}

  /** The deploy label of an operand, e.g. nvidia.com/gpu.deploy.device-plugin. */
  public static String deploy(String operand) {
    return DEPLOY_PREFIX + operand;
  }
}

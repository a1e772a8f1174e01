package io.gpuoperator.operator.operand;

import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.api.v1.VgpuDeviceManagerSpec;
import io.gpuoperator.operator.spec.Section;

/**
 * When the original deploys its sandbox (VM workload) states (operand-contracts 1.2): only with
 * {@code sandboxWorkloads.enabled}, each behind its section's {@code enabled} (off unless set, as
 * in the original's Go defaults), the KubeVirt device plugin in {@code kubevirt} mode (the
 * default), the Kata device plugin and the CC manager in {@code kata} mode, and the vGPU manager
 * not where NVIDIADriver resources manage the drivers. Which nodes they run on is the node labels'
 * business ({@code NodeLabelRules}).
 */
final class SandboxWorkloads {
  private SandboxWorkloads() {}

  /** {@code sandboxWorkloads.enabled}. */
  static boolean enabled(ClusterPolicySpec spec) {
    return spec.sandboxWorkloads != null && Boolean.TRUE.equals(spec.sandboxWorkloads.enabled);
  }

  /** {@code sandboxWorkloads.mode}, kubevirt when unset. */
  static SandboxWorkloadsSpec.Mode mode(ClusterPolicySpec spec) {
    return spec.sandboxWorkloads == null || spec.sandboxWorkloads.mode == null
        ? SandboxWorkloadsSpec.Mode.KUBEVIRT
        : spec.sandboxWorkloads.mode;
  }

  /**
   * The workload of nodes without the label, as the sandbox validator gets it ({@code
   * DEFAULT_GPU_WORKLOAD_CONFIG}): {@code sandboxWorkloads.defaultWorkload}, else container.
   */
  static String defaultWorkload(ClusterPolicySpec spec) {
    var w =
        spec.sandboxWorkloads == null || spec.sandboxWorkloads.defaultWorkload == null
            ? SandboxWorkloadsSpec.Workload.CONTAINER
            : spec.sandboxWorkloads.defaultWorkload;
    return switch (w) {
      case CONTAINER -> "container";
      case VM_PASSTHROUGH -> "vm-passthrough";
      case VM_VGPU -> "vm-vgpu";
    };
  }

  /** A section deployed with sandbox workloads on. */
  static boolean deploys(ClusterPolicySpec spec, Section section) {
    return enabled(spec) && section.enabled(spec);
  }

  /** A section deployed with sandbox workloads on, in one mode only. */
  static boolean deploys(ClusterPolicySpec spec, Section section, SandboxWorkloadsSpec.Mode mode) {
    return deploys(spec, section) && mode(spec) == mode;
  }

  /**
   * The ConfigMap of vGPU layouts the policy names ({@code vgpuDeviceManager.config.name}), or null
   * for none or the original's default one, which this project does not ship.
   */
  static String vgpuDevicesConfig(ClusterPolicySpec spec) {
    var v = spec.vgpuDeviceManager;
    if (v == null || v.config == null || v.config.name == null || v.config.name.isBlank()) {
      return null;
    }
    String name = v.config.name.trim();
    return name.equals(VgpuDeviceManagerSpec.ORIGINAL_DEFAULT_CONFIG) ? null : name;
  }

  /** The vGPU device manager: only with a ConfigMap of layouts the policy names. */
  static boolean vgpuDeviceManager(ClusterPolicySpec spec) {
    return deploys(spec, Section.VGPU_DEVICE_MANAGER) && vgpuDevicesConfig(spec) != null;
  }

  /** The vGPU manager: not where NVIDIADriver resources manage the drivers (as the driver). */
  static boolean vgpuManager(ClusterPolicySpec spec) {
    boolean driverCrd = spec.driver != null && Boolean.TRUE.equals(spec.driver.useNvidiaDriverCRD);
    return deploys(spec, Section.VGPU_MANAGER) && !driverCrd;
  }
}

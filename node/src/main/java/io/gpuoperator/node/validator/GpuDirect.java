package io.gpuoperator.node.validator;

import java.util.function.Predicate;

/**
 * The GPUDirect kernel modules NVIDIA's driver container loads when their feature is on, each
 * checked by the step of the original's name: loaded in the kernel, then its marker.
 */
enum GpuDirect {
  NVIDIA_FS(Component.NVIDIA_FS, "nvidia_fs", ValidatorEnv.GDS_ENABLED, "GPUDirect Storage"),
  GDRCOPY(Component.GDRCOPY, "gdrdrv", ValidatorEnv.GDRCOPY_ENABLED, "GDRCopy"),
  NVIDIA_PEERMEM(
      Component.NVIDIA_PEERMEM,
      "nvidia_peermem",
      ValidatorEnv.GPU_DIRECT_RDMA_ENABLED,
      "GPUDirect RDMA");

  final Component component;
  final String module;
  final String flag;
  final String feature;

  GpuDirect(Component component, String module, String flag, String feature) {
    this.component = component;
    this.module = module;
    this.flag = flag;
    this.feature = feature;
  }

  /** Whether the feature is on by the validator's own environment. */
  boolean enabledBy(ValidatorConfig config) {
    return switch (this) {
      case NVIDIA_FS -> config.gdsEnabled();
      case GDRCOPY -> config.gdrcopyEnabled();
      case NVIDIA_PEERMEM -> config.rdmaEnabled();
    };
  }

  /** The feature of a component, or null when it is no GPUDirect step. */
  static GpuDirect of(Component c) {
    for (GpuDirect g : values()) {
      if (g.component == c) {
        return g;
      }
    }
    return null;
  }

  /** Whether the feature is on by the environment or by the flags the driver container wrote. */
  boolean enabled(ValidatorConfig config, Predicate<String> driverFlags) {
    return enabledBy(config) || driverFlags.test(flag);
  }
}

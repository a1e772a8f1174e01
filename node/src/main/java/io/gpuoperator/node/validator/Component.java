package io.gpuoperator.node.validator;

import java.util.List;

/**
 * The original validator's components, by its names and marker files. The operator validator's init
 * chain runs driver, toolkit, cuda, plugin (the driver step also checks the GPUDirect modules its
 * driver container enabled); the sandbox validator's runs cc-manager, vfio-pci, vgpu-manager,
 * vgpu-devices; mofed is run on its own; dra (the original's separate DRA validation state, on
 * nodes where the DRA driver runs) follows the driver. With {@code --wait} a step first waits for
 * the marker of the step it {@link #after() follows}, where it has one.
 */
public enum Component {
  DRIVER("driver-ready", null),
  NVIDIA_FS("nvidia-fs-ready", DRIVER),
  GDRCOPY("gdrcopy-ready", DRIVER),
  NVIDIA_PEERMEM("nvidia-peermem-ready", DRIVER),
  TOOLKIT("toolkit-ready", DRIVER),
  CUDA("cuda-ready", TOOLKIT),
  PLUGIN("plugin-ready", CUDA),
  MOFED("mofed-ready", null),
  CC_MANAGER("cc-manager-ready", null),
  VFIO_PCI("vfio-pci-ready", null),
  VGPU_MANAGER("vgpu-manager-ready", null),
  VGPU_DEVICES("vgpu-devices-ready", null),
  /** Ours: the original validates DRA with its own DaemonSet, whose pod readiness is the signal. */
  DRA("dra-ready", DRIVER);

  /** The operator validator's init containers, in the original's order. */
  public static final List<Component> OPERATOR_CHAIN = List.of(DRIVER, TOOLKIT, CUDA, PLUGIN);

  /**
   * The sandbox validator's init containers, in the original's order: each runs after the one
   * before has finished, but none waits for another's marker (each may be skipped on a node).
   */
  public static final List<Component> SANDBOX_CHAIN =
      List.of(CC_MANAGER, VFIO_PCI, VGPU_MANAGER, VGPU_DEVICES);

  /** What vgpu-manager writes instead of its marker when the vGPU manager is on the host. */
  public static final String HOST_VGPU_MANAGER_READY = "host-vgpu-manager-ready";

  private final String marker;
  private final Component after;

  Component(String marker, Component after) {
    this.marker = marker;
    this.after = after;
  }

  /** The marker file this step writes into the validations directory. */
  public String marker() {
    return marker;
  }

  /**
   * The step whose marker this one waits for with {@code --wait}; null where the original waits for
   * no marker (the driver waits for its container's own file, see {@link Validator}).
   */
  public Component after() {
    return after;
  }

  /** The original's component name: {@code nvidia-fs}, {@code vgpu-manager} ... */
  public String cliName() {
    return io.gpuoperator.config.Values.kebab(this);
  }

  /** Parses one of the names {@link #cliName()} gives. */
  public static Component parse(String name) {
    return io.gpuoperator.config.Parse.constant("component", values()).apply(name);
  }
}

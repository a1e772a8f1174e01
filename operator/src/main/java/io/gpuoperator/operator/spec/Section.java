package io.gpuoperator.operator.spec;

import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import java.util.function.Function;

/**
 * The component sections of a ClusterPolicy: where each lives in the spec, its field path, whether
 * it is on when the policy does not say (the original's Go default), and the key of its default
 * image (the operator's {@code *_IMAGE} environment). One owner for these facts, used by operand
 * rendering and by policy validation.
 */
public enum Section {
  DRIVER("spec.driver", s -> s.driver, true, "driver"),
  DRIVER_MANAGER(
      "spec.driver.manager",
      s -> s.driver == null ? null : s.driver.manager,
      true,
      "driver-manager"),
  TOOLKIT("spec.toolkit", s -> s.toolkit, true, "container-toolkit"),
  VALIDATOR("spec.validator", s -> s.validator, true, "operator-validator"),
  DEVICE_PLUGIN("spec.devicePlugin", s -> s.devicePlugin, true, "device-plugin"),
  DRA_DRIVER("spec.draDriver", s -> s.draDriver, false, "dra-driver"),
  DCGM("spec.dcgm", s -> s.dcgm, true, "dcgm"),
  DCGM_EXPORTER("spec.dcgmExporter", s -> s.dcgmExporter, true, "dcgm-exporter"),
  GFD("spec.gfd", s -> s.gfd, true, "gpu-feature-discovery"),
  MIG_MANAGER("spec.migManager", s -> s.migManager, true, "mig-manager"),
  NODE_STATUS_EXPORTER(
      "spec.nodeStatusExporter", s -> s.nodeStatusExporter, false, "node-status-exporter"),
  GDS("spec.gds", s -> s.gds, false, "gds"),
  GDRCOPY("spec.gdrcopy", s -> s.gdrcopy, false, "gdrcopy"),
  // The sandbox (VM workload) operands: off unless the policy enables them, as in the original's
  // Go defaults (its chart enables most of them; they run only with sandboxWorkloads.enabled).
  VGPU_MANAGER("spec.vgpuManager", s -> s.vgpuManager, false, "vgpu-manager"),
  VGPU_DEVICE_MANAGER(
      "spec.vgpuDeviceManager", s -> s.vgpuDeviceManager, false, "vgpu-device-manager"),
  VFIO_MANAGER("spec.vfioManager", s -> s.vfioManager, false, "vfio-manager"),
  SANDBOX_DEVICE_PLUGIN(
      "spec.sandboxDevicePlugin", s -> s.sandboxDevicePlugin, false, "sandbox-device-plugin"),
  KATA_SANDBOX_DEVICE_PLUGIN(
      "spec.kataSandboxDevicePlugin",
      s -> s.kataSandboxDevicePlugin,
      false,
      "kata-sandbox-device-plugin"),
  CC_MANAGER("spec.ccManager", s -> s.ccManager, false, "cc-manager");

  private final String path;
  private final Function<ClusterPolicySpec, ComponentSpec> getter;
  private final boolean enabledByDefault;
  private final String imageKey;

  Section(
      String path,
      Function<ClusterPolicySpec, ComponentSpec> getter,
      boolean enabledByDefault,
      String imageKey) {
    this.path = path;
    this.getter = getter;
    this.enabledByDefault = enabledByDefault;
    this.imageKey = imageKey;
  }

  /** The field path, e.g. "spec.devicePlugin". */
  public String path() {
    return path;
  }

  /** The section in a spec, or null when absent. */
  public ComponentSpec of(ClusterPolicySpec spec) {
    return spec == null ? null : getter.apply(spec);
  }

  /** Its {@code enabled} field, resolved against the original's default. */
  public boolean enabled(ClusterPolicySpec spec) {
    ComponentSpec c = of(spec);
    return c == null ? enabledByDefault : c.isEnabled(enabledByDefault);
  }

  /** The key of the operator's default image for this section (see OperatorConfig#image). */
  public String imageKey() {
    return imageKey;
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * NVIDIA's vGPU manager under the original's contract (operand-contracts 3.13.1): the licensee's
 * vGPU host-driver image with the nodes' OS tag appended as for the driver ({@code -<osTag>}, not
 * to a digest), the driver manager from {@code vgpuManager.driverManager}, and each key of {@code
 * vgpuManager.kernelModuleConfig} mounted as {@code /drivers/<key>}. There is no default image:
 * without one the policy is refused naming {@code spec.vgpuManager.image}.
 */
final class VgpuManagerTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-vgpu-manager-ctr";
  static final String PATH = "spec.vgpuManager.driverManager";

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx) {
    var v = ctx.spec().vgpuManager;
    main.setImage(DriverTransform.withOsTag(main.getImage(), ctx));
    SandboxDriverManager.apply(pod, v, v == null ? null : v.driverManager, PATH, ctx);
    if (v != null
        && v.kernelModuleConfig != null
        && !RenderContext.blank(v.kernelModuleConfig.name)) {
      DriverConfigMounts.perKey(
          pod,
          main,
          v.kernelModuleConfig.name.trim(),
          "/drivers",
          "spec.vgpuManager.kernelModuleConfig.name",
          ctx,
          true);
    }
  }

  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    return SandboxDriverManager.validate(
        spec.vgpuManager == null ? null : spec.vgpuManager.driverManager, PATH);
  }
}

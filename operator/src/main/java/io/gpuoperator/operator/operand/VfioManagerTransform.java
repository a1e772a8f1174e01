package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * NVIDIA's VFIO manager under the original's contract (operand-contracts 3.13.4): the manifest is
 * the contract; the policy picks the driver manager's image and env ({@code
 * vfioManager.driverManager}). Image, resources, args and env of the main container are the common
 * rendering's.
 */
final class VfioManagerTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-vfio-manager";
  static final String PATH = "spec.vfioManager.driverManager";

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx) {
    var v = ctx.spec().vfioManager;
    SandboxDriverManager.apply(pod, v, v == null ? null : v.driverManager, PATH, ctx);
  }

  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    return SandboxDriverManager.validate(
        spec.vfioManager == null ? null : spec.vfioManager.driverManager, PATH);
  }
}

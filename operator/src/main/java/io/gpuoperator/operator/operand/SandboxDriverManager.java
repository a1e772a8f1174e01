package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverManagerSpec;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.ImageRules;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * The {@code k8s-driver-manager} init container of the vGPU and VFIO managers (operand-contracts
 * 3.13.1, 3.13.4): the section's {@code driverManager} image (else the operator's driver-manager
 * image, as the original falls back to {@code DRIVER_MANAGER_IMAGE}), its pull policy where set and
 * pull secrets, the operand's resources, and its {@code env} after the manifest's. Eviction and
 * auto-drain stay off: the node's GPUs serve VMs, not pods.
 */
final class SandboxDriverManager {
  static final String CONTAINER = "k8s-driver-manager";

  private SandboxDriverManager() {}

  static void apply(
      PodSpec pod,
      ComponentSpec operand,
      DriverManagerSpec manager,
      String path,
      RenderContext ctx) {
    Container c = DaemonSets.container(pod, CONTAINER);
    c.setImage(ImageResolver.resolve(manager, path, ctx.defaultImage(Section.DRIVER_MANAGER)));
    String pull = RenderContext.pullPolicyIfSet(manager);
    if (pull != null) {
      c.setImagePullPolicy(pull);
    }
    DaemonSets.addPullSecrets(pod, manager);
    if (operand != null && operand.resources != null) {
      c.setResources(operand.resources);
    }
    if (manager != null && manager.env != null) {
      manager.env.forEach(e -> DaemonSets.setEnv(c, e.name, e.value));
    }
  }

  /** The driver manager's image fields, checked where the operand is deployed. */
  static List<Violation> validate(DriverManagerSpec manager, String path) {
    return ImageRules.check(manager, path);
  }
}

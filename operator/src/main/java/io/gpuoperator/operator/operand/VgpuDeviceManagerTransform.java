package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * NVIDIA's vGPU device manager under the original's contract (operand-contracts 3.13.2), with the
 * vGPU layouts from the ConfigMap {@code vgpuDeviceManager.config.name} names: the original's
 * default ConfigMap ({@code default-vgpu-devices-config}, NVIDIA's table of every vGPU type of
 * every supported GPU) is not shipped, so without a name the state is not deployed ({@link
 * SandboxWorkloads#vgpuDeviceManager}; reported in the IgnoredFields condition). The ConfigMap must
 * exist with the key {@value #CONFIG_KEY} the manager reads, or the policy is refused naming the
 * field. The section's env comes before {@code DEFAULT_VGPU_CONFIG}, as in the original.
 */
final class VgpuDeviceManagerTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-vgpu-device-manager";
  static final String CONFIG_KEY = "config.yaml";
  static final String NAME_PATH = "spec.vgpuDeviceManager.config.name";

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container main, RenderContext ctx) {
    var v = ctx.spec().vgpuDeviceManager;
    String name = SandboxWorkloads.vgpuDevicesConfig(ctx.spec());
    List<String> keys = ctx.facts().configMapKeys().get(name);
    if (keys == null || !keys.contains(CONFIG_KEY)) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  NAME_PATH,
                  keys == null
                      ? "ConfigMap '"
                          + name
                          + "' not found in namespace "
                          + ctx.namespace()
                          + " (the vGPU device manager reads its layouts from it)"
                      : "ConfigMap '"
                          + name
                          + "' has no key '"
                          + CONFIG_KEY
                          + "' (the vGPU device manager reads /vgpu-config/"
                          + CONFIG_KEY
                          + "); its keys: "
                          + keys)));
    }
    DaemonSets.volume(pod, "vgpu-config").getConfigMap().setName(name);
    DaemonSets.mergeEnv(main, v);
    String def =
        v == null || v.config == null || RenderContext.blank(v.config.defaultEntry)
            ? "default"
            : v.config.defaultEntry.trim();
    DaemonSets.setEnv(main, "DEFAULT_VGPU_CONFIG", def);
  }

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    return List.of();
  }
}

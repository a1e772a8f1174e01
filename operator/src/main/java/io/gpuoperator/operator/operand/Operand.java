package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.spec.Section;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One operand as data: everything that differs between operands is a field, and the rendering
 * pipeline ({@link ManifestRenderer}) is the same for all. Adding an operand is one entry in {@link
 * Operands} plus its manifest folder.
 *
 * @param name the manifest folder {@code manifests/<name>/}, the suffix of its deploy label {@code
 *     nvidia.com/gpu.deploy.<name>} and its name in status and {@code plan}
 * @param state the original's state name (e.g. {@code state-device-plugin}), as its status messages
 *     use it
 * @param section the policy section with its image, resources, args and env; null for operands
 *     without one (RuntimeClasses, the operator's metrics Service)
 * @param enabled whether the policy deploys it (a disabled operand's objects are deleted)
 * @param mainContainer the container that gets the section's image, resources, args and env; null
 *     when the operand has no DaemonSet
 * @param runtimeClass whether its pods use the GPU through the operator's RuntimeClass
 * @param transform what is specific to it under NVIDIA's image (the original's contract)
 * @param agent its rendering for this project's image (our agent), or null when this project has no
 *     agent for it: then it always runs NVIDIA's image
 */
public record Operand(
    String name,
    String state,
    Section section,
    Predicate<ClusterPolicySpec> enabled,
    String mainContainer,
    boolean runtimeClass,
    Transform transform,
    Agent agent) {

  public Operand {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(enabled, "enabled");
    transform = transform == null ? Transform.NONE : transform;
  }

  /** Whether the policy deploys this operand. */
  public boolean enabled(ClusterPolicy policy) {
    return enabled.test(RenderContext.specOf(policy));
  }

  /**
   * The objects as rendered, in manifest order, with namespace and labels set; {@link
   * Operands#renderAll} stamps the ownership label and hash ({@link ManagedObjects#stamp}), the
   * reconciler the owner reference.
   *
   * @throws io.gpuoperator.operator.validation.PolicyValidationException when the policy cannot be
   *     rendered (for example a half-set image triple), naming the field
   */
  public List<HasMetadata> render(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    return ManifestRenderer.render(this, RenderContext.of(policy, facts, config));
  }
}

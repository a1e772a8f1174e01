package io.gpuoperator.operator.operand;

import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.HostPathsSpec;
import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.spec.Section;

/**
 * The inputs of one rendering pass, with the policy's spec never null, and, while one operand is
 * rendered, the rendering it got and its main container ({@link Operand#mainContainer}, null for
 * operands without a DaemonSet and outside an operand's rendering).
 */
public record RenderContext(
    ClusterPolicy policy,
    ClusterPolicySpec spec,
    ClusterFacts facts,
    OperatorConfig config,
    Rendering rendering,
    String mainContainer) {

  static RenderContext of(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    return new RenderContext(policy, specOf(policy), facts, config, Rendering.NONE, null);
  }

  /** The context of one operand's rendering. */
  RenderContext with(Operand operand, Rendering r) {
    return new RenderContext(policy, spec, facts, config, r, operand.mainContainer());
  }

  /** The same pass for other facts (one driver node pool's). */
  RenderContext with(ClusterFacts f) {
    return new RenderContext(policy, spec, f, config, rendering, mainContainer);
  }

  /** The policy's spec, empty (all defaults) when the policy has none. */
  static ClusterPolicySpec specOf(ClusterPolicy policy) {
    return policy == null || policy.getSpec() == null ? new ClusterPolicySpec() : policy.getSpec();
  }

  /** Whether the CDI NRI plugin replaces RuntimeClasses ({@code cdi.nriPluginEnabled}). */
  public boolean nriPlugin() {
    return spec.cdi != null && Boolean.TRUE.equals(spec.cdi.nriPluginEnabled);
  }

  /** The namespace operands run in. */
  public String namespace() {
    return config.namespace();
  }

  /** Whether CDI is on (the original's default: on unless set to false). */
  public boolean cdiEnabled() {
    return spec.cdi == null || !Boolean.FALSE.equals(spec.cdi.enabled);
  }

  /** The MIG strategy our agents run with: the policy's, or {@link MigStrategy#DEFAULT}. */
  public MigStrategy migStrategy() {
    return spec.mig == null || spec.mig.strategy == null ? MigStrategy.DEFAULT : spec.mig.strategy;
  }

  /**
   * The policy's MIG strategy as NVIDIA's images get it, or null when {@code mig.strategy} is
   * absent (they are then given none and apply their own default).
   */
  public String migStrategyOrNull() {
    return spec.mig == null || spec.mig.strategy == null ? null : spec.mig.strategy.value();
  }

  /** The RuntimeClass operands that use the GPU run with. */
  public String runtimeClass() {
    return spec.operator == null
            || spec.operator.runtimeClass == null
            || spec.operator.runtimeClass.isBlank()
        ? "nvidia"
        : spec.operator.runtimeClass.trim();
  }

  /** The container runtime of the GPU nodes: containerd (the default), crio or docker. */
  public String runtime() {
    return facts.containerRuntime() == null ? "containerd" : facts.containerRuntime();
  }

  /**
   * The image a section gets when the policy names none: the operator's {@code *_IMAGE} override,
   * else our image where this binary has the section's agent, else NVIDIA's.
   */
  public String defaultImage(Section section) {
    return defaultImage(config, section);
  }

  /** {@link #defaultImage(Section)} where there is no policy to render (a ComputeDomain's). */
  public static String defaultImage(OperatorConfig config, Section section) {
    String override = config.image(section.imageKey());
    return override != null ? override : Operands.defaultImage(section.imageKey(), config.agents());
  }

  /** The section's image: the policy's, else {@link #defaultImage}. */
  public String image(Section section) {
    return ImageResolver.resolve(section.of(spec), section.path(), defaultImage(section));
  }

  /**
   * The image NVIDIA's contract can run for a section: its image, or NVIDIA's default when that is
   * our image (e.g. the config-manager sidecar when our device plugin runs), from the mirror our
   * image comes from ({@link OperandImages#onMirrorOf}).
   */
  public String nvidiaImage(Section section) {
    String image = image(section);
    return OperandImages.isProjectImage(image)
        ? OperandImages.onMirrorOf(OperandImages.nvidiaDefault(section.imageKey()), image)
        : image;
  }

  /** Whether the validator's image (used by every validation init container) is ours. */
  public boolean validatorIsAgent() {
    return OperandImages.isProjectImage(image(Section.VALIDATOR));
  }

  /** {@code hostPaths.rootFS} when custom (not "/"), else null. */
  public String customRootFs() {
    HostPathsSpec hp = spec.hostPaths;
    return custom(hp == null ? null : hp.rootFS, HostPathsSpec.DEFAULT_ROOT_FS);
  }

  /** {@code hostPaths.driverInstallDir} when custom, else null. */
  public String customDriverInstallDir() {
    HostPathsSpec hp = spec.hostPaths;
    return custom(
        hp == null ? null : hp.driverInstallDir, HostPathsSpec.DEFAULT_DRIVER_INSTALL_DIR);
  }

  /**
   * {@code hostPaths.kubeletRootDir} when custom, else null: the exporter's pod-resources socket
   * and the DRA plugin's sockets follow it.
   */
  public String customKubeletRootDir() {
    HostPathsSpec hp = spec.hostPaths;
    return custom(hp == null ? null : hp.kubeletRootDir, HostPathsSpec.DEFAULT_KUBELET_ROOT_DIR);
  }

  /** A host path's value, trimmed, when it is set and not the default; else null. */
  private static String custom(String value, String defaultValue) {
    return blank(value) || value.trim().equals(defaultValue) ? null : value.trim();
  }

  /** The section's pull policy when set (for containers that keep their manifest's otherwise). */
  public static String pullPolicyIfSet(io.gpuoperator.api.common.ImageSpec c) {
    return c == null || blank(c.imagePullPolicy)
        ? null
        : ImageResolver.pullPolicy(c.imagePullPolicy);
  }

  static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.ImageRules;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.PolicyValidator;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every operand, in the order the operator deploys them (the original's state order). */
public final class Operands {
  private static final List<Operand> ORDERED =
      List.of(
          new Operand(
              OperandNames.PRE_REQUISITES,
              "pre-requisites",
              null,
              spec -> spec.cdi == null || !Boolean.TRUE.equals(spec.cdi.nriPluginEnabled),
              null,
              false,
              new PreRequisitesTransform(),
              null),
          new Operand(
              OperandNames.OPERATOR_METRICS,
              "state-operator-metrics",
              null,
              spec -> true,
              null,
              false,
              new OperatorMetricsTransform(),
              null),
          new Operand(
              OperandNames.DRIVER,
              "state-driver",
              Section.DRIVER,
              DriverTransform::enabled,
              DriverTransform.CONTAINER,
              false,
              new DriverTransform(),
              null),
          new Operand(
              OperandNames.CONTAINER_TOOLKIT,
              "state-container-toolkit",
              Section.TOOLKIT,
              Section.TOOLKIT::enabled,
              ContainerToolkitTransform.CONTAINER,
              false,
              new ContainerToolkitTransform(),
              // Not the default: this image lacks NVIDIA's runtime binaries
              // (nvidia-container-runtime,
              // nvidia-cdi-hook), which NVIDIA's toolkit image installs on the host and the nvidia
              // runtime class runs; the agent is used where the policy names this project's image.
              new Agent("toolkit", new ContainerToolkitAgentTransform(), false)),
          new Operand(
              OperandNames.OPERATOR_VALIDATOR,
              "state-operator-validation",
              Section.VALIDATOR,
              spec -> true,
              OperatorValidatorTransform.CONTAINER,
              true,
              new OperatorValidatorTransform(),
              new Agent("validator", new OperatorValidatorAgentTransform())),
          new Operand(
              OperandNames.DEVICE_PLUGIN,
              "state-device-plugin",
              Section.DEVICE_PLUGIN,
              Section.DEVICE_PLUGIN::enabled,
              DevicePluginTransform.CONTAINER,
              true,
              new DevicePluginTransform(),
              new Agent("device-plugin", new DevicePluginAgentTransform())),
          new Operand(
              OperandNames.MPS_CONTROL_DAEMON,
              "state-mps-control-daemon",
              Section.DEVICE_PLUGIN,
              MpsControlDaemonTransform::enabled,
              MpsControlDaemonTransform.CONTAINER,
              true,
              new MpsControlDaemonTransform(),
              null),
          // Our dra-plugin only: NVIDIA's DRA driver image has its own chart and contract.
          new Operand(
              OperandNames.DRA_DRIVER,
              "state-dra-driver",
              Section.DRA_DRIVER,
              Section.DRA_DRIVER::enabled,
              DraDriverTransform.CONTAINER,
              true,
              Transform.NONE,
              new Agent("dra-plugin", new DraDriverTransform())),
          new Operand(
              OperandNames.DCGM,
              "state-dcgm",
              Section.DCGM,
              Section.DCGM::enabled,
              "nvidia-dcgm-ctr",
              true,
              Transform.NONE,
              null),
          new Operand(
              OperandNames.DCGM_EXPORTER,
              "state-dcgm-exporter",
              Section.DCGM_EXPORTER,
              Section.DCGM_EXPORTER::enabled,
              DcgmExporterTransform.CONTAINER,
              true,
              new DcgmExporterTransform(),
              // Our exporter reads the same DCGM_EXPORTER_* env, so one transform serves both.
              new Agent("exporter", new DcgmExporterTransform())),
          new Operand(
              OperandNames.GPU_FEATURE_DISCOVERY,
              "gpu-feature-discovery",
              Section.GFD,
              Section.GFD::enabled,
              GpuFeatureDiscoveryTransform.CONTAINER,
              true,
              new GpuFeatureDiscoveryTransform(),
              new Agent("feature-discovery", new GpuFeatureDiscoveryAgentTransform())),
          new Operand(
              OperandNames.MIG_MANAGER,
              "state-mig-manager",
              Section.MIG_MANAGER,
              Section.MIG_MANAGER::enabled,
              MigManagerTransform.CONTAINER,
              true,
              new MigManagerTransform(),
              new Agent("mig-manager", new MigManagerAgentTransform())),
          new Operand(
              OperandNames.NODE_STATUS_EXPORTER,
              "state-node-status-exporter",
              Section.NODE_STATUS_EXPORTER,
              Section.NODE_STATUS_EXPORTER::enabled,
              "nvidia-node-status-exporter",
              false,
              Transform.NONE,
              null),
          // The sandbox (VM workload) states: NVIDIA's images only, on the nodes whose workload
          // label asks for them (SandboxWorkloads says when; NodeLabelRules where). The original's
          // state-kata-manager is hard-wired off in v26.7, so it has no entry.
          new Operand(
              OperandNames.VGPU_MANAGER,
              "state-vgpu-manager",
              Section.VGPU_MANAGER,
              SandboxWorkloads::vgpuManager,
              VgpuManagerTransform.CONTAINER,
              false,
              new VgpuManagerTransform(),
              null),
          new Operand(
              OperandNames.VGPU_DEVICE_MANAGER,
              "state-vgpu-device-manager",
              Section.VGPU_DEVICE_MANAGER,
              SandboxWorkloads::vgpuDeviceManager,
              VgpuDeviceManagerTransform.CONTAINER,
              false,
              new VgpuDeviceManagerTransform(),
              null),
          new Operand(
              OperandNames.SANDBOX_VALIDATOR,
              "state-sandbox-validation",
              Section.VALIDATOR,
              SandboxWorkloads::enabled,
              SandboxValidatorTransform.CONTAINER,
              false,
              new SandboxValidatorTransform(),
              null),
          new Operand(
              OperandNames.VFIO_MANAGER,
              "state-vfio-manager",
              Section.VFIO_MANAGER,
              spec -> SandboxWorkloads.deploys(spec, Section.VFIO_MANAGER),
              VfioManagerTransform.CONTAINER,
              false,
              new VfioManagerTransform(),
              null),
          new Operand(
              OperandNames.SANDBOX_DEVICE_PLUGIN,
              "state-sandbox-device-plugin",
              Section.SANDBOX_DEVICE_PLUGIN,
              spec ->
                  SandboxWorkloads.deploys(
                      spec, Section.SANDBOX_DEVICE_PLUGIN, SandboxWorkloadsSpec.Mode.KUBEVIRT),
              "nvidia-sandbox-device-plugin-ctr",
              false,
              Transform.NONE,
              null),
          new Operand(
              OperandNames.KATA_SANDBOX_DEVICE_PLUGIN,
              "state-kata-device-plugin",
              Section.KATA_SANDBOX_DEVICE_PLUGIN,
              spec ->
                  SandboxWorkloads.deploys(
                      spec, Section.KATA_SANDBOX_DEVICE_PLUGIN, SandboxWorkloadsSpec.Mode.KATA),
              "nvidia-kata-sandbox-device-plugin-ctr",
              false,
              Transform.NONE,
              null),
          new Operand(
              OperandNames.CC_MANAGER,
              "state-cc-manager",
              Section.CC_MANAGER,
              spec ->
                  SandboxWorkloads.deploys(
                      spec, Section.CC_MANAGER, SandboxWorkloadsSpec.Mode.KATA),
              CcManagerTransform.CONTAINER,
              false,
              new CcManagerTransform(),
              null));

  private Operands() {}

  /**
   * The image an operand section runs when neither the policy nor the operator's env names one:
   * this project's image where this binary has the operand's agent, else NVIDIA's. The one place
   * that turns "which agents exist" into default images.
   *
   * @param key the section's image key (an operand name, or e.g. "driver-manager")
   * @param agents the subcommands of the running binary
   */
  public static String defaultImage(String key, Set<String> agents) {
    for (Operand operand : ORDERED) {
      if (operand.name().equals(key)
          && operand.agent() != null
          && operand.agent().byDefault()
          && agents.contains(operand.agent().subcommand())) {
        return OperandImages.projectImage();
      }
    }
    return OperandImages.nvidiaDefault(key);
  }

  /** Every operand's default image, for {@code gpu-operator version}. */
  public static Map<String, String> defaultImages(Set<String> agents) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Operand operand : ORDERED) {
      if (operand.section() != null && operand.section().imageKey().equals(operand.name())) {
        out.put(operand.name(), defaultImage(operand.name(), agents));
      }
    }
    out.put(
        Section.DRIVER_MANAGER.imageKey(), defaultImage(Section.DRIVER_MANAGER.imageKey(), agents));
    return out;
  }

  /**
   * The ConfigMaps the driver mounts key by key ({@code repoConfig}, {@code certConfig}, {@code
   * kernelModuleConfig}, and the vGPU manager's {@code kernelModuleConfig}), and the vGPU device
   * manager's layouts: the reconciler and {@code plan} read their keys into the cluster facts.
   */
  public static Set<String> driverConfigMaps(ClusterPolicy policy) {
    Set<String> out = new java.util.TreeSet<>();
    var vgpu = RenderContext.specOf(policy).vgpuManager;
    if (vgpu != null
        && vgpu.kernelModuleConfig != null
        && !RenderContext.blank(vgpu.kernelModuleConfig.name)) {
      out.add(vgpu.kernelModuleConfig.name.trim()); // the vGPU manager mounts it the same way
    }
    String vgpuDevices = SandboxWorkloads.vgpuDevicesConfig(RenderContext.specOf(policy));
    if (vgpuDevices != null) {
      out.add(vgpuDevices); // checked for the key the vGPU device manager reads
    }
    var d = RenderContext.specOf(policy).driver;
    if (d == null) {
      return out;
    }
    if (d.repoConfig != null && !RenderContext.blank(d.repoConfig.configMapName)) {
      out.add(d.repoConfig.configMapName.trim());
    }
    if (d.certConfig != null && !RenderContext.blank(d.certConfig.name)) {
      out.add(d.certConfig.name.trim());
    }
    if (d.kernelModuleConfig != null && !RenderContext.blank(d.kernelModuleConfig.name)) {
      out.add(d.kernelModuleConfig.name.trim());
    }
    return out;
  }

  /** The operands in deployment order. */
  public static List<Operand> ordered() {
    return ORDERED;
  }

  /** An operand by name. */
  public static Operand byName(String name) {
    return ORDERED.stream()
        .filter(m -> m.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown operand " + name));
  }

  /**
   * Every violation of the policy: the cross-field rules of {@link PolicyValidator}, then, for each
   * operand the policy deploys, its image fields and its own rules. The validator's image is
   * checked always: every operand's validation init containers run it.
   */
  public static List<Violation> validate(ClusterPolicy policy) {
    List<Violation> out = new ArrayList<>(PolicyValidator.validate(policy));
    if (policy == null || policy.getSpec() == null) {
      return out;
    }
    ClusterPolicySpec spec = policy.getSpec();
    Set<Violation> operandRules = new LinkedHashSet<>();
    operandRules.addAll(ImageRules.check(Section.VALIDATOR.of(spec), Section.VALIDATOR.path()));
    for (Operand operand : ORDERED) {
      if (!operand.enabled().test(spec)) {
        continue;
      }
      if (operand.section() != null) {
        operandRules.addAll(ImageRules.check(operand.section().of(spec), operand.section().path()));
      }
      operandRules.addAll(operand.transform().validate(spec));
    }
    out.addAll(operandRules);
    return out;
  }

  /**
   * Renders every operand: enabled ones with their objects, stamped as the operator's ({@link
   * ManagedObjects#stamp}), disabled ones with none (the reconciler deletes what exists). All
   * rendering errors are collected into one exception. In node-agents mode ({@link
   * OperatorConfig#nodeAgents}) our long-running agents' DaemonSets become one ({@link
   * NodeAgentsModel}), under an extra operand {@code node-agents}; otherwise that operand is listed
   * disabled, so a node-agents DaemonSet left from the mode being on is deleted.
   *
   * @throws PolicyValidationException naming every invalid field
   */
  public static List<RenderedOperand> renderAll(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<RenderedOperand> out = new ArrayList<>();
    List<Violation> violations = new ArrayList<>(validate(policy));
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations);
    }
    for (Operand operand : ORDERED) {
      if (!operand.enabled(policy)) {
        out.add(new RenderedOperand(operand.name(), false, List.of()));
        continue;
      }
      try {
        RenderContext ctx = RenderContext.of(policy, facts, config);
        Rendering rendering = ManifestRenderer.choose(operand, ctx);
        List<HasMetadata> objects = ManifestRenderer.render(operand, ctx);
        objects.forEach(o -> ManagedObjects.stamp(o, operand.name(), config.namespace()));
        out.add(new RenderedOperand(operand.name(), true, objects, rendering));
      } catch (PolicyValidationException e) {
        violations.addAll(e.violations());
      }
    }
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations.stream().distinct().toList());
    }
    if (config.nodeAgents()) {
      return NodeAgentsModel.compose(out, RenderContext.of(policy, facts, config));
    }
    out.add(new RenderedOperand(NodeAgentsModel.NAME, false, List.of()));
    return out;
  }
}

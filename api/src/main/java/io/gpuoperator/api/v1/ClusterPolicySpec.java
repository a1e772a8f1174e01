package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.gpuoperator.api.common.ComponentSpec;

/**
 * Desired state of the GPU stack: one section per operand plus cluster-wide settings, with the
 * original's field names so its YAML is accepted unchanged. The CEL rules are the cross-section
 * checks the API server can enforce; the operator checks the same in code (PolicyValidator) for
 * {@code plan}, which runs without an API server.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!(has(self.cdi) && has(self.cdi.nriPluginEnabled) && self.cdi.nriPluginEnabled"
            + " && has(self.toolkit) && has(self.toolkit.enabled) && !self.toolkit.enabled)",
    message = "requires spec.toolkit.enabled to be true (the toolkit installs the NRI plugin)",
    fieldPath = ".cdi.nriPluginEnabled")
@ValidationRule(
    value =
        "!(has(self.driver) && has(self.driver.usePrecompiled) && self.driver.usePrecompiled"
            + " && has(self.gds) && has(self.gds.enabled) && self.gds.enabled)",
    message = "is not supported with a precompiled driver (spec.driver.usePrecompiled=true)",
    fieldPath = ".gds.enabled")
@ValidationRule(
    value =
        "!(has(self.driver) && has(self.driver.usePrecompiled) && self.driver.usePrecompiled"
            + " && has(self.gdrcopy) && has(self.gdrcopy.enabled) && self.gdrcopy.enabled)",
    message = "is not supported with a precompiled driver (spec.driver.usePrecompiled=true)",
    fieldPath = ".gdrcopy.enabled")
public class ClusterPolicySpec {
  @JsonPropertyDescription("Operator-wide settings: RuntimeClass name, the operator's metrics.")
  public OperatorSpec operator;

  @JsonPropertyDescription(
      "Settings of every operand DaemonSet: labels, tolerations, priority, update strategy.")
  public DaemonsetsSpec daemonsets;

  @JsonPropertyDescription("The NVIDIA driver container (on by default).")
  public DriverSpec driver;

  @JsonPropertyDescription(
      "The container toolkit: configures the container runtime and CDI (on by default).")
  public ToolkitSpec toolkit;

  @JsonPropertyDescription(
      "The device plugin: advertises nvidia.com/gpu (or MIG resources) to the kubelet (on by"
          + " default).")
  public DevicePluginSpec devicePlugin;

  @JsonPropertyDescription(
      "The Dynamic Resource Allocation driver for GPUs (gpu.nvidia.com, with NVIDIA's device"
          + " classes gpu.nvidia.com and mig.nvidia.com; not in the original's ClusterPolicy; off by"
          + " default; needs Kubernetes 1.32 or newer). A node gets either it or the device plugin:"
          + " with both enabled, label each GPU node nvidia.com/gpu.deploy.device-plugin=false or"
          + " nvidia.com/gpu.deploy.dra-driver=false.")
  public DraDriverSpec draDriver;

  @JsonPropertyDescription(
      "The standalone DCGM host engine (on by default; the chart turns it off).")
  public DcgmSpec dcgm;

  @JsonPropertyDescription("The DCGM exporter: GPU metrics for Prometheus (on by default).")
  public DcgmExporterSpec dcgmExporter;

  @JsonPropertyDescription(
      "GPU feature discovery: labels nodes with GPU model, memory, MIG capability (on by"
          + " default).")
  public ComponentSpec gfd;

  @JsonPropertyDescription("How MIG devices are advertised.")
  public MigSpec mig;

  @JsonPropertyDescription(
      "The MIG manager: applies the MIG layout a node's nvidia.com/mig.config label names (on by"
          + " default).")
  public MigManagerSpec migManager;

  @JsonPropertyDescription(
      "The node status exporter: per-node validation metrics (off by default).")
  public ComponentSpec nodeStatusExporter;

  @JsonPropertyDescription("The validator, which checks each layer of the stack on every node.")
  public ValidatorSpec validator;

  @JsonPropertyDescription(
      "GPUDirect Storage (the nvidia-fs sidecar of the driver; off by default).")
  public ComponentSpec gds;

  @JsonPropertyDescription("GDRCopy (the gdrdrv sidecar of the driver; off by default).")
  public ComponentSpec gdrcopy;

  @JsonPropertyDescription("Container Device Interface settings.")
  public CdiSpec cdi;

  @JsonPropertyDescription(
      "Pod Security Admission labels on the operator namespace (not set by this operator yet).")
  public EnabledSpec psa;

  @JsonPropertyDescription("Deprecated in the original and ignored (PodSecurityPolicy).")
  public EnabledSpec psp;

  @JsonPropertyDescription("Host paths the operands mount.")
  public HostPathsSpec hostPaths;

  @JsonPropertyDescription(
      "VM workloads: each GPU node's nvidia.com/gpu.workload.config label picks its operands.")
  public SandboxWorkloadsSpec sandboxWorkloads;

  @JsonPropertyDescription("The vGPU manager (sandbox workloads, vm-vgpu nodes).")
  public VgpuManagerSpec vgpuManager;

  @JsonPropertyDescription(
      "The vGPU device manager (sandbox workloads, vm-vgpu nodes): deployed with a ConfigMap of"
          + " vGPU layouts named in config.name (this operator ships no default one).")
  public VgpuDeviceManagerSpec vgpuDeviceManager;

  @JsonPropertyDescription("The VFIO manager (sandbox workloads, vm-passthrough nodes).")
  public VfioManagerSpec vfioManager;

  @JsonPropertyDescription("The KubeVirt GPU device plugin (sandbox workloads, kubevirt mode).")
  public ComponentSpec sandboxDevicePlugin;

  @JsonPropertyDescription("The kata sandbox device plugin (sandbox workloads, kata mode).")
  public ComponentSpec kataSandboxDevicePlugin;

  @JsonPropertyDescription("The kata manager: deprecated, never deployed (as in the original).")
  public KataManagerSpec kataManager;

  @JsonPropertyDescription("The confidential-computing manager (sandbox workloads, kata mode).")
  public CcManagerSpec ccManager;

  @JsonPropertyDescription(
      "Taint for GPU nodes, applied by the operator when this section is given (not in the"
          + " original). Absent: no taint, as the original.")
  public NodeTaintSpec nodeTaint;

  @JsonPropertyDescription(
      "GPU fault remediation (not in the original): acting on the nodes' GPU fault conditions."
          + " Absent or not enabled: nothing acts on them.")
  public RemediationSpec remediation;
}

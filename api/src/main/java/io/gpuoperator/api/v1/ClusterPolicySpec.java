package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;

/**
 * Desired state of the GPU stack: one section per operand plus cluster-wide settings, with the
 * original's field names so its YAML is accepted unchanged.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClusterPolicySpec {
  public OperatorSpec operator;
  public DaemonsetsSpec daemonsets;
  public DriverSpec driver;
  public ToolkitSpec toolkit;
  public DevicePluginSpec devicePlugin;
  public DcgmSpec dcgm;
  public DcgmExporterSpec dcgmExporter;
  public ComponentSpec gfd;
  public MigSpec mig;
  public MigManagerSpec migManager;
  public ComponentSpec nodeStatusExporter;
  public ValidatorSpec validator;
  public ComponentSpec gds;
  public ComponentSpec gdrcopy;
  public CdiSpec cdi;
  public EnabledSpec psa;
  public EnabledSpec psp;
  public HostPathsSpec hostPaths;
  public SandboxWorkloadsSpec sandboxWorkloads;
  public ComponentSpec vgpuManager;
  public ComponentSpec vgpuDeviceManager;
  public ComponentSpec vfioManager;
  public ComponentSpec sandboxDevicePlugin;
  public ComponentSpec kataSandboxDevicePlugin;
  public ComponentSpec kataManager;
  public ComponentSpec ccManager;

  @JsonPropertyDescription(
      "Taint for GPU nodes, applied by the operator (not in the original). Enabled by default.")
  public NodeTaintSpec nodeTaint;
}

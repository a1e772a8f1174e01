package io.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverContainerSpec;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.common.UpgradePolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import java.util.List;
import java.util.Map;

/**
 * A driver for the nodes its selector matches. The API server enforces the CEL rules; the operator
 * checks the same rules in code, so {@code plan} finds them offline.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!(has(self.nodeSelector) && size(self.nodeSelector) > 0 && has(self.default)"
            + " && self.default == true)",
    message = "a default NVIDIADriver must not set nodeSelector")
public class NVIDIADriverSpec extends DriverContainerSpec {
  @Default("gpu")
  @ValidationRule(value = "self == oldSelf", message = "driverType is immutable")
  @JsonPropertyDescription("gpu (default), vgpu or vgpu-host-manager; immutable.")
  public DriverType driverType;

  @PrinterColumn(name = "Default")
  @JsonProperty("default")
  @JsonPropertyDescription(
      "The driver of GPU nodes no other NVIDIADriver selects; must not set nodeSelector.")
  public Boolean defaultDriver;

  @ValidationRule(value = "self == oldSelf", message = "usePrecompiled is immutable")
  @JsonPropertyDescription("Use precompiled driver images, one DaemonSet per kernel; immutable.")
  public Boolean usePrecompiled;

  @JsonPropertyDescription("auto (default), open or proprietary kernel modules.")
  public DriverSpec.KernelModuleType kernelModuleType;

  @JsonPropertyDescription("GPUDirect Storage (the nvidia-fs sidecar).")
  public ComponentSpec gds;

  @JsonPropertyDescription("GDRCopy (the gdrdrv sidecar).")
  public ComponentSpec gdrcopy;

  @JsonPropertyDescription("The k8s-driver-manager init container.")
  public ComponentSpec manager;

  @JsonPropertyDescription("ConfigMap of package repository files for air-gapped installs.")
  public NamedRef repoConfig;

  @JsonPropertyDescription("ConfigMap of CA certificates the driver container trusts.")
  public NamedRef certConfig;

  @JsonPropertyDescription("vGPU guest driver licensing.")
  public LicensingConfig licensingConfig;

  @JsonPropertyDescription("ConfigMap with the vGPU virtual topology configuration.")
  public NamedRef virtualTopologyConfig;

  @JsonPropertyDescription("ConfigMap of kernel module parameters.")
  public NamedRef kernelModuleConfig;

  @JsonPropertyDescription(
      "Name of a Secret whose keys become environment variables of the driver.")
  public String secretEnv;

  @JsonPropertyDescription("How driver upgrades roll across the selected nodes.")
  public UpgradePolicySpec upgradePolicy;

  @JsonPropertyDescription("The nodes this driver is for.")
  public Map<String, String> nodeSelector;

  @JsonPropertyDescription("Node affinity of the driver pods.")
  public NodeAffinity nodeAffinity;

  @JsonPropertyDescription("Labels of the driver DaemonSet and pods.")
  public Map<String, String> labels;

  @JsonPropertyDescription("Annotations of the driver DaemonSet and pods.")
  public Map<String, String> annotations;

  @JsonPropertyDescription("Tolerations of the driver pods.")
  public List<Toleration> tolerations;

  @JsonPropertyDescription("Priority class of the driver pods.")
  public String priorityClassName;

  @JsonPropertyDescription("Pod-level security context of the driver pods.")
  public PodSecurityContext podSecurityContext;

  @JsonPropertyDescription("Run the driver pods in the host network.")
  public Boolean hostNetwork;

  /** Kinds of driver. */
  public enum DriverType {
    @JsonProperty("gpu")
    GPU,
    @JsonProperty("vgpu")
    VGPU,
    @JsonProperty("vgpu-host-manager")
    VGPU_HOST_MANAGER
  }

  /** vGPU licensing. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class LicensingConfig {
    @JsonPropertyDescription("Secret with gridd.conf and the client configuration token.")
    public String secretName;

    @JsonPropertyDescription("Deprecated: a ConfigMap with gridd.conf; use secretName.")
    public String name;

    @Default("true")
    @JsonPropertyDescription("License through NVIDIA License System (default true).")
    public Boolean nlsEnabled;
  }
}

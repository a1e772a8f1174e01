package io.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.common.ProbeSpec;
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
public class NVIDIADriverSpec extends ComponentSpec {
  @Default("gpu")
  @ValidationRule(value = "self == oldSelf", message = "driverType is immutable")
  public DriverType driverType;

  @PrinterColumn(name = "Default")
  @JsonProperty("default")
  public Boolean defaultDriver;

  @ValidationRule(value = "self == oldSelf", message = "usePrecompiled is immutable")
  public Boolean usePrecompiled;

  public DriverSpec.KernelModuleType kernelModuleType;
  public ProbeSpec startupProbe;
  public ProbeSpec livenessProbe;
  public ProbeSpec readinessProbe;
  public DriverSpec.Rdma rdma;
  public ComponentSpec gds;
  public ComponentSpec gdrcopy;
  public ComponentSpec manager;
  public NamedRef repoConfig;
  public NamedRef certConfig;
  public LicensingConfig licensingConfig;
  public NamedRef virtualTopologyConfig;
  public NamedRef kernelModuleConfig;
  public String secretEnv;
  public UpgradePolicySpec upgradePolicy;

  public Map<String, String> nodeSelector;
  public NodeAffinity nodeAffinity;
  public Map<String, String> labels;
  public Map<String, String> annotations;
  public List<Toleration> tolerations;
  public String priorityClassName;
  public PodSecurityContext podSecurityContext;
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
    public String secretName;
    public String name;

    @Default("true")
    public Boolean nlsEnabled;
  }
}

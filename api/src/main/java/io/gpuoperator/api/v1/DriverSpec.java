package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverContainerSpec;
import io.gpuoperator.api.common.UpgradePolicySpec;

/**
 * The NVIDIA driver container. The CEL rules repeat checks the operator makes in code
 * (PolicyValidator), so the API server rejects such a policy and {@code plan} finds it offline.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!(has(self.usePrecompiled) && self.usePrecompiled && has(self.version)"
            + " && self.version.matches('^\\\\s*sha256:'))",
    message =
        "a precompiled driver needs a driver branch as version (e.g. 570), not a digest:"
            + " the image tag is derived from it per kernel",
    fieldPath = ".version")
@ValidationRule(
    value =
        "!(has(self.useNvidiaDriverCRD) && self.useNvidiaDriverCRD && has(self.usePrecompiled)"
            + " && self.usePrecompiled)",
    message =
        "has no effect with spec.driver.useNvidiaDriverCRD=true: set usePrecompiled on the"
            + " NVIDIADriver resource",
    fieldPath = ".usePrecompiled")
@ValidationRule(
    value =
        "!(has(self.useNvidiaDriverCRD) && self.useNvidiaDriverCRD && has(self.enabled)"
            + " && !self.enabled)",
    message =
        "requires spec.driver.enabled to be true: NVIDIADriver resources are only used when"
            + " the driver is managed",
    fieldPath = ".useNvidiaDriverCRD")
public class DriverSpec extends DriverContainerSpec {
  @JsonPropertyDescription(
      "Manage drivers through NVIDIADriver resources instead of this section (not reconciled by"
          + " this operator yet: no driver is deployed then).")
  public Boolean useNvidiaDriverCRD;

  @JsonPropertyDescription(
      "Use precompiled driver images, one DaemonSet per kernel of the GPU nodes; version is then"
          + " the driver branch (e.g. 570).")
  public Boolean usePrecompiled;

  @JsonPropertyDescription("auto (default), open or proprietary kernel modules.")
  public KernelModuleType kernelModuleType;

  @JsonPropertyDescription("Deprecated in the original and ignored: use kernelModuleType.")
  public Boolean useOpenKernelModules;

  @JsonPropertyDescription(
      "How driver upgrades roll across nodes (automatic upgrades are not implemented by this"
          + " operator yet: the driver DaemonSet is OnDelete).")
  public UpgradePolicySpec upgradePolicy;

  @JsonPropertyDescription(
      "The k8s-driver-manager init container that prepares a node (evicts GPU pods, unloads the"
          + " old driver) before the driver starts.")
  public ComponentSpec manager;

  @JsonPropertyDescription("Package repository files for air-gapped installs.")
  public RepoConfig repoConfig;

  @JsonPropertyDescription("CA certificates the driver container trusts (a ConfigMap).")
  public CertConfig certConfig;

  @JsonPropertyDescription("vGPU guest driver licensing.")
  public LicensingConfig licensingConfig;

  @JsonPropertyDescription("vGPU virtual topology.")
  public VirtualTopology virtualTopology;

  @JsonPropertyDescription("Kernel module parameters (a ConfigMap whose keys become files).")
  public CertConfig kernelModuleConfig;

  @JsonPropertyDescription(
      "Name of a Secret whose keys become environment variables of the driver.")
  public String secretEnv;

  /** Which kernel modules the driver container builds. */
  public enum KernelModuleType {
    @JsonProperty("auto")
    AUTO,
    @JsonProperty("open")
    OPEN,
    @JsonProperty("proprietary")
    PROPRIETARY
  }

  /** ConfigMap with package repository files for air-gapped installs. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class RepoConfig {
    @JsonPropertyDescription("ConfigMap whose keys are repository files (e.g. cuda.list).")
    public String configMapName;
  }

  /** A ConfigMap by name. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class CertConfig {
    @JsonPropertyDescription("Name of the ConfigMap in the operator namespace; empty: none.")
    public String name;
  }

  /** vGPU licensing. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class LicensingConfig {
    @JsonPropertyDescription("Deprecated: a ConfigMap with gridd.conf; use secretName.")
    public String configMapName;

    @JsonPropertyDescription("Secret with gridd.conf and the client configuration token.")
    public String secretName;

    @JsonPropertyDescription("License through NVIDIA License System (default true).")
    public Boolean nlsEnabled;
  }

  /** vGPU virtual topology. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class VirtualTopology {
    @JsonPropertyDescription("ConfigMap with the virtual topology configuration.")
    public String config;
  }
}

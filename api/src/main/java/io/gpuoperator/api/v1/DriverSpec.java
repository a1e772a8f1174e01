package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.ProbeSpec;
import io.gpuoperator.api.common.UpgradePolicySpec;

/** The NVIDIA driver container. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverSpec extends ComponentSpec {
  public Boolean useNvidiaDriverCRD;
  public Boolean usePrecompiled;
  public KernelModuleType kernelModuleType;

  /** Deprecated in the original: use kernelModuleType. */
  public Boolean useOpenKernelModules;

  public ProbeSpec startupProbe;
  public ProbeSpec livenessProbe;
  public ProbeSpec readinessProbe;
  public Rdma rdma;
  public UpgradePolicySpec upgradePolicy;
  public ComponentSpec manager;
  public RepoConfig repoConfig;
  public CertConfig certConfig;
  public LicensingConfig licensingConfig;
  public VirtualTopology virtualTopology;
  public CertConfig kernelModuleConfig;

  /** Name of a Secret whose keys become environment variables of the driver container. */
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

  /** GPUDirect RDMA. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Rdma {
    public Boolean enabled;
    public Boolean useHostMofed;
  }

  /** ConfigMap with package repository files for air-gapped installs. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class RepoConfig {
    public String configMapName;
  }

  /** A ConfigMap by name. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class CertConfig {
    public String name;
  }

  /** vGPU licensing. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class LicensingConfig {
    public String configMapName;
    public String secretName;
    public Boolean nlsEnabled;
  }

  /** vGPU virtual topology. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class VirtualTopology {
    public String config;
  }
}

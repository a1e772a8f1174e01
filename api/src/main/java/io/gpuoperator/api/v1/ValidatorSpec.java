package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.EnvVar;
import java.util.List;

/** The validator and its per-component settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ValidatorSpec extends ComponentSpec {
  @JsonPropertyDescription("The device-plugin validation (e.g. WITH_WORKLOAD).")
  public Component plugin;

  @JsonPropertyDescription("The container-toolkit validation.")
  public Component toolkit;

  @JsonPropertyDescription("The driver validation.")
  public Component driver;

  @JsonPropertyDescription("The CUDA workload validation.")
  public Component cuda;

  @JsonPropertyDescription("The vfio-pci validation (VM passthrough).")
  public Component vfioPCI;

  @JsonPropertyDescription("The vGPU manager validation.")
  public Component vgpuManager;

  @JsonPropertyDescription("The vGPU devices validation.")
  public Component vgpuDevices;

  /** Environment for one validation component. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Component {
    @JsonPropertyDescription("Environment of this validation's init container.")
    public List<EnvVar> env;
  }
}

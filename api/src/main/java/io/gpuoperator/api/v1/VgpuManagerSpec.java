package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverManagerSpec;

/** The vGPU host manager (vm-vgpu nodes). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VgpuManagerSpec extends ComponentSpec {
  @JsonPropertyDescription("The driver manager init container of the vGPU manager.")
  public DriverManagerSpec driverManager;

  @JsonPropertyDescription("Kernel module parameters (a ConfigMap whose keys become files).")
  public DriverSpec.CertConfig kernelModuleConfig;
}

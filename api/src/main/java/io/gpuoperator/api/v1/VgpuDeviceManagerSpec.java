package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The vGPU device manager (vm-vgpu nodes); not deployed by this operator yet. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VgpuDeviceManagerSpec extends ComponentSpec {
  @JsonPropertyDescription(
      "ConfigMap of vGPU device layouts (default default-vgpu-devices-config) and the layout"
          + " nodes get without the nvidia.com/vgpu.config label (default: default).")
  public NamedRef config;
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The vGPU device manager (vm-vgpu nodes), with the layouts of a ConfigMap the policy names. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VgpuDeviceManagerSpec extends ComponentSpec {
  /**
   * The ConfigMap of vGPU layouts the original creates when {@code config.name} is empty, which
   * this project does not ship.
   */
  public static final String ORIGINAL_DEFAULT_CONFIG = "default-vgpu-devices-config";

  @JsonPropertyDescription(
      "ConfigMap of vGPU device layouts (default default-vgpu-devices-config) and the layout"
          + " nodes get without the nvidia.com/vgpu.config label (default: default).")
  public NamedRef config;
}

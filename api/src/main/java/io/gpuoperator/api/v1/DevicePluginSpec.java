package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The device plugin that advertises nvidia.com/gpu and MIG resources. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DevicePluginSpec extends ComponentSpec {
  @JsonPropertyDescription(
      "ConfigMap of device-plugin configs (version: v1), shared with feature discovery; each node"
          + " uses the entry its nvidia.com/device-plugin.config label names, else the default.")
  public NamedRef config;

  @JsonPropertyDescription("MPS (multi-process service) settings.")
  public Mps mps;

  /** MPS settings. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Mps {
    @JsonPropertyDescription("Host directory of the MPS pipes and logs (default /run/nvidia/mps).")
    public String root;
  }
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The device plugin that advertises nvidia.com/gpu and MIG resources. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DevicePluginSpec extends ComponentSpec {
  /**
   * ConfigMap of plugin configs; the entry is picked per node by nvidia.com/device-plugin.config.
   */
  public NamedRef config;

  public Mps mps;

  /** MPS settings. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Mps {
    public String root;
  }
}

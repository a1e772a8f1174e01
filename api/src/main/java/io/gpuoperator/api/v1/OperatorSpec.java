package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Default;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import java.util.Map;

/** Operator-wide settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class OperatorSpec {
  @Default("nvidia")
  public String runtimeClass;

  /** Deprecated in the original: the runtime is detected from the nodes. */
  public DefaultRuntime defaultRuntime;

  /** Deprecated in the original. */
  public ComponentSpec initContainer;

  public Map<String, String> labels;
  public Map<String, String> annotations;
  public Metrics metrics;

  @JsonProperty("use_ocp_driver_toolkit")
  public Boolean useOcpDriverToolkit;

  /** Container runtime names the original accepts. */
  public enum DefaultRuntime {
    @JsonProperty("docker")
    DOCKER,
    @JsonProperty("crio")
    CRIO,
    @JsonProperty("containerd")
    CONTAINERD
  }

  /** Operator metrics settings. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Metrics {
    public ServiceMonitorConfig serviceMonitor;
  }
}

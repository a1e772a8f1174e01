package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import java.util.Map;

/** Operator-wide settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class OperatorSpec {
  @Default("nvidia")
  @JsonPropertyDescription("Name of the RuntimeClass GPU operands run with.")
  public String runtimeClass;

  @JsonPropertyDescription(
      "Deprecated in the original and ignored: the runtime is detected from the nodes.")
  public DefaultRuntime defaultRuntime;

  @JsonPropertyDescription("Deprecated in the original and ignored.")
  public ComponentSpec initContainer;

  @JsonPropertyDescription("Labels of the operator's own objects (as in the original's chart).")
  public Map<String, String> labels;

  @JsonPropertyDescription("Annotations of the operator's own objects.")
  public Map<String, String> annotations;

  @JsonPropertyDescription("The operator's own metrics.")
  public Metrics metrics;

  @JsonProperty("use_ocp_driver_toolkit")
  @JsonPropertyDescription(
      "OpenShift: build the driver with the cluster's Driver Toolkit image for each RHCOS"
          + " version (default true; used where the driver-toolkit ImageStream and NFD's OSTree"
          + " version labels exist).")
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
    @JsonPropertyDescription("The ServiceMonitor of the operator's metrics Service.")
    public ServiceMonitorConfig serviceMonitor;
  }
}

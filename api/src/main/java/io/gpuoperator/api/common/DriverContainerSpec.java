package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * What both driver resources, a ClusterPolicy's {@code spec.driver} and an NVIDIADriver's spec, say
 * about the driver container beyond its image: its probes' timing and GPUDirect RDMA. The CRDs list
 * properties by name, so the fields kept here leave both schemas as they were.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverContainerSpec extends ComponentSpec {
  @JsonPropertyDescription("Startup probe timing of the driver container.")
  public ProbeSpec startupProbe;

  @JsonPropertyDescription("Liveness probe timing of the driver container.")
  public ProbeSpec livenessProbe;

  @JsonPropertyDescription("Readiness probe timing of the driver container.")
  public ProbeSpec readinessProbe;

  @JsonPropertyDescription("GPUDirect RDMA (the nvidia-peermem module).")
  public Rdma rdma;

  /** GPUDirect RDMA. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Rdma {
    @JsonPropertyDescription("Load nvidia-peermem (a sidecar of the driver).")
    public Boolean enabled;

    @JsonPropertyDescription("The host has MOFED installed (instead of the network operator's).")
    public Boolean useHostMofed;
  }
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** Timing of a container probe. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProbeSpec {
  @Min(0)
  @JsonPropertyDescription("Seconds after the container starts before the first probe.")
  public Integer initialDelaySeconds;

  @Min(1)
  @JsonPropertyDescription("Seconds after which one probe times out.")
  public Integer timeoutSeconds;

  @Min(1)
  @JsonPropertyDescription("Seconds between probes.")
  public Integer periodSeconds;

  @Min(1)
  @JsonPropertyDescription("Consecutive successes after a failure to count as healthy again.")
  public Integer successThreshold;

  @Min(1)
  @JsonPropertyDescription("Consecutive failures before the container counts as failed.")
  public Integer failureThreshold;
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;

/** Timing of a container probe. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProbeSpec {
  @Min(0)
  public Integer initialDelaySeconds;

  @Min(1)
  public Integer timeoutSeconds;

  @Min(1)
  public Integer periodSeconds;

  @Min(1)
  public Integer successThreshold;

  @Min(1)
  public Integer failureThreshold;
}

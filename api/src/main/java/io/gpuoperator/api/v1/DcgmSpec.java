package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.gpuoperator.api.common.ComponentSpec;

/** The standalone DCGM host engine. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DcgmSpec extends ComponentSpec {
  /** Deprecated in the original. */
  @Min(1)
  @Max(65535)
  public Integer hostPort;
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.gpuoperator.api.common.ComponentSpec;

/** The standalone DCGM host engine. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DcgmSpec extends ComponentSpec {
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Deprecated in the original and ignored: the engine listens on 5555.")
  public Integer hostPort;
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A section that is only switched on or off (psa, psp). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnabledSpec {
  @JsonPropertyDescription("Switch the feature on.")
  public Boolean enabled;

  public boolean isEnabled(boolean whenUnset) {
    return enabled == null ? whenUnset : enabled;
  }
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** Container Device Interface settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CdiSpec {
  /** On unless set to false. */
  public Boolean enabled;

  /** Deprecated in the original. */
  @JsonProperty("default")
  public Boolean defaultMode;

  /** Requires cdi.enabled and toolkit.enabled. */
  public Boolean nriPluginEnabled;
}

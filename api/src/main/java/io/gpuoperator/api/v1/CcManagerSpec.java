package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;

/** The confidential-computing manager (sandbox workloads in kata mode). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CcManagerSpec extends ComponentSpec {
  @JsonPropertyDescription(
      "Confidential-computing mode set on capable GPUs: on, off, devtools (or ppcie).")
  public String defaultMode;
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How MIG devices are exposed as resources. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigSpec {
  @JsonPropertyDescription(
      "none: MIG ignored; single: MIG devices as nvidia.com/gpu (one profile per node); mixed:"
          + " nvidia.com/mig-<profile> per profile. Default single.")
  public Strategy strategy;

  /** The original's MIG strategies. */
  public enum Strategy {
    @JsonProperty("none")
    NONE,
    @JsonProperty("single")
    SINGLE,
    @JsonProperty("mixed")
    MIXED;

    public String value() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}

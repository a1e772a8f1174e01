package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** How MIG devices are exposed as resources. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigSpec {
  @JsonPropertyDescription(
      "none: MIG ignored; single: MIG devices as nvidia.com/gpu (one profile per node); mixed:"
          + " nvidia.com/mig-<profile> per profile. Absent: none, as the original's images"
          + " default to (its chart sets single).")
  public MigStrategy strategy;
}

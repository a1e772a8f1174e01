package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One driver node pool (GPU nodes of one OS, and one kernel for precompiled drivers). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverPoolStatus {
  @JsonPropertyDescription(
      "The pool: its OS tag (ubuntu22.04, rhel9), with the kernel for precompiled drivers"
          + " (ubuntu22.04/5.15.0-105-generic); 'unknown' for nodes without NFD os_release labels.")
  public String name;

  @JsonPropertyDescription(
      "ready (the driver may roll out to it) or refused (incompatible: nothing about its driver"
          + " changes until the reason is fixed; the other pools proceed).")
  public String state;

  @JsonPropertyDescription("Why the pool is refused, naming the nodes concerned.")
  public String reason;
}

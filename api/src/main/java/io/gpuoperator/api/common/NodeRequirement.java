package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A GPU node that lacks what an enabled GPUDirect feature needs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeRequirement {
  @JsonPropertyDescription("The node.")
  public String node;

  @JsonPropertyDescription("The feature: rdma (driver.rdma), gds or gdrcopy.")
  public String feature;

  @JsonPropertyDescription("What the node lacks, with the node label that would show it.")
  public String missing;
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A reference to a ConfigMap by name, with an optional default entry. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NamedRef {
  @JsonPropertyDescription(
      "Name of the ConfigMap in the operator namespace; empty means the operand's default.")
  public String name;

  @JsonProperty("default")
  @JsonPropertyDescription(
      "The ConfigMap entry used on nodes that do not select one with their label.")
  public String defaultEntry;

  public NamedRef() {}

  public NamedRef(String name) {
    this.name = name;
  }
}

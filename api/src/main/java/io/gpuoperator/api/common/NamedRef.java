package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A reference to a ConfigMap or Secret by name, with an optional default entry. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NamedRef {
  public String name;

  @com.fasterxml.jackson.annotation.JsonProperty("default")
  public String defaultEntry;

  public NamedRef() {}

  public NamedRef(String name) {
    this.name = name;
  }
}

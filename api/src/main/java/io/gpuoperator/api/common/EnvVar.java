package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** A name/value environment variable, as the original's ClusterPolicy writes them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EnvVar {
  @Required
  @JsonPropertyDescription("Variable name.")
  public String name;

  @JsonPropertyDescription("Variable value (empty when omitted).")
  public String value;

  public EnvVar() {}

  public EnvVar(String name, String value) {
    this.name = name;
    this.value = value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EnvVar e && Objects.equals(name, e.name) && Objects.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, value);
  }

  @Override
  public String toString() {
    return name + "=" + value;
  }
}

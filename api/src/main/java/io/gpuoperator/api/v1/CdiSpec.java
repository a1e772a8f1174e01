package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** Container Device Interface settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.nriPluginEnabled) || !self.nriPluginEnabled || !has(self.enabled)"
            + " || self.enabled",
    message = "requires spec.cdi.enabled to be true (it is false)",
    fieldPath = ".nriPluginEnabled")
public class CdiSpec {
  @JsonPropertyDescription("Inject GPUs into containers through CDI; on unless set to false.")
  public Boolean enabled;

  @JsonProperty("default")
  @JsonPropertyDescription("Deprecated in the original and ignored.")
  public Boolean defaultMode;

  @JsonPropertyDescription(
      "Inject devices with the NRI plugin instead of a RuntimeClass; requires cdi.enabled and"
          + " toolkit.enabled.")
  public Boolean nriPluginEnabled;
}

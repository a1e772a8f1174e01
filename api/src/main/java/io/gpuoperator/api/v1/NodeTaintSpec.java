package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/**
 * The taint the operator keeps on GPU nodes so that only pods that tolerate it (GPU workloads and
 * the operands) land there, when the policy gives this section. Not in the original, which taints
 * nothing (users taint nodes by hand): without the section no node is tainted.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeTaintSpec {
  public static final String DEFAULT_KEY = "nvidia.com/gpu";
  public static final String DEFAULT_VALUE = "present";

  @Default("true")
  @JsonPropertyDescription(
      "Keep the taint on GPU nodes (and off other nodes); false takes back the taint the operator"
          + " added.")
  public Boolean enabled;

  @Default(DEFAULT_KEY)
  @Pattern(
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
  @JsonPropertyDescription(
      "Taint key; while the taint is enabled the operator owns every taint with this key on GPU"
          + " nodes.")
  public String key;

  @Default(DEFAULT_VALUE)
  @JsonPropertyDescription("Taint value.")
  public String value;

  @Default("NoSchedule")
  @JsonPropertyDescription("NoSchedule, PreferNoSchedule or NoExecute.")
  public Effect effect;

  /** Taint effects. */
  public enum Effect {
    @JsonProperty("NoSchedule")
    NO_SCHEDULE,
    @JsonProperty("PreferNoSchedule")
    PREFER_NO_SCHEDULE,
    @JsonProperty("NoExecute")
    NO_EXECUTE
  }
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** Settings applied to every operand DaemonSet. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DaemonsetsSpec {
  @JsonPropertyDescription(
      "Labels added to every operand DaemonSet and its pods (app and app.kubernetes.io/part-of"
          + " excepted: selectors are immutable).")
  public Map<String, String> labels;

  @JsonPropertyDescription("Annotations added to every operand DaemonSet and its pods.")
  public Map<String, String> annotations;

  @JsonPropertyDescription(
      "Replaces the tolerations of every operand (default: nvidia.com/gpu Exists NoSchedule).")
  public List<Toleration> tolerations;

  @JsonPropertyDescription("Priority class of every operand pod (default system-node-critical).")
  public String priorityClassName;

  @JsonPropertyDescription(
      "RollingUpdate (default) or OnDelete for every operand; the driver stays OnDelete.")
  public UpdateStrategy updateStrategy;

  @JsonPropertyDescription("Rolling update parameters (with updateStrategy RollingUpdate).")
  public RollingUpdate rollingUpdate;

  @JsonPropertyDescription("Pod-level security context of every operand pod.")
  public PodSecurityContext podSecurityContext;

  /** DaemonSet update strategies. */
  public enum UpdateStrategy {
    @JsonProperty("RollingUpdate")
    ROLLING_UPDATE,
    @JsonProperty("OnDelete")
    ON_DELETE
  }

  /** Rolling update parameters. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class RollingUpdate {
    @JsonPropertyDescription(
        "Pods that may be unavailable during an update: a number or a percentage (default 1).")
    public IntOrString maxUnavailable;
  }
}

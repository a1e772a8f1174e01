package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** Settings applied to every operand DaemonSet. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DaemonsetsSpec {
  public Map<String, String> labels;
  public Map<String, String> annotations;

  /** Replaces the tolerations of every operand manifest. */
  public List<Toleration> tolerations;

  public String priorityClassName;
  public UpdateStrategy updateStrategy;
  public RollingUpdate rollingUpdate;
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
    public IntOrString maxUnavailable;
  }
}

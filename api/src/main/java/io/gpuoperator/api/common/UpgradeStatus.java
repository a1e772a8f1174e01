package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Progress of a driver upgrade across the driver's nodes, counted from their upgrade states. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeStatus {
  @JsonPropertyDescription(
      "idle (every node runs the current driver), inProgress, halted (too many failed nodes or a"
          + " failed canary; no node starts) or disabled (autoUpgrade off).")
  public String phase;

  @JsonPropertyDescription("Nodes running the current driver (upgrade-done).")
  public Integer done;

  @JsonPropertyDescription("Nodes between cordon and uncordon.")
  public Integer inProgress;

  @JsonPropertyDescription("Nodes in upgrade-failed (reasons in their Events).")
  public Integer failed;

  @JsonPropertyDescription("Nodes waiting to start (upgrade-required).")
  public Integer pending;

  @JsonPropertyDescription("The wave being upgraded, 0 for the canaries, when a rollout is set.")
  public Integer wave;

  @JsonPropertyDescription("What the upgrade waits for or why it halted, naming nodes.")
  public String message;
}

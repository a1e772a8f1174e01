package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.IntOrString;

/** How driver upgrades roll across nodes (the original's driver.upgradePolicy). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradePolicySpec {
  @JsonPropertyDescription("Upgrade the driver on every node when its DaemonSet changes.")
  public Boolean autoUpgrade;

  @Min(0)
  @JsonPropertyDescription("Nodes upgraded at the same time; 0 means no limit.")
  public Integer maxParallelUpgrades;

  @JsonPropertyDescription(
      "Nodes that may be unavailable during the upgrade: a number or a percentage (25%).")
  public IntOrString maxUnavailable;

  @JsonPropertyDescription("Wait for matching pods on a node to finish before upgrading it.")
  public WaitForCompletion waitForCompletion;

  @JsonPropertyDescription("How GPU pods are deleted before the driver restarts.")
  public PodDeletion podDeletion;

  @JsonPropertyDescription("How a node is drained before the driver restarts.")
  public Drain drain;

  /** Wait for matching jobs on the node before upgrading it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class WaitForCompletion {
    @Min(0)
    @JsonPropertyDescription("Seconds to wait; 0 waits without limit.")
    public Integer timeoutSeconds;

    @JsonPropertyDescription("Label selector of the pods to wait for.")
    public String podSelector;
  }

  /** Deletion of GPU pods before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class PodDeletion {
    @JsonPropertyDescription("Delete pods that no controller manages too.")
    public Boolean force;

    @Min(0)
    @JsonPropertyDescription("Seconds to wait for the pods to go; 0 waits without limit.")
    public Integer timeoutSeconds;

    @JsonPropertyDescription("Delete pods that use emptyDir volumes (their data is lost).")
    public Boolean deleteEmptyDir;
  }

  /** Node drain before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Drain {
    @JsonPropertyDescription("Drain the node before upgrading its driver.")
    public Boolean enable;

    @JsonPropertyDescription("Drain pods that no controller manages too.")
    public Boolean force;

    @JsonPropertyDescription("Label selector of the pods to drain (default: all).")
    public String podSelector;

    @Min(0)
    @JsonPropertyDescription("Seconds to wait for the drain; 0 waits without limit.")
    public Integer timeoutSeconds;

    @JsonPropertyDescription("Drain pods that use emptyDir volumes (their data is lost).")
    public Boolean deleteEmptyDir;
  }
}

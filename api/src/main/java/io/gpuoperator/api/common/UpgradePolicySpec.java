package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.Map;

/** How driver upgrades roll across nodes (the original's driver.upgradePolicy). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradePolicySpec {
  @JsonPropertyDescription(
      "Let the operator upgrade driver pods node by node when the driver spec changes (cordon,"
          + " evict GPU pods, restart the driver, validate, uncordon). Off: driver pods change"
          + " only when deleted by hand.")
  public Boolean autoUpgrade;

  @JsonPropertyDescription(
      "Most nodes upgrading at once (between cordon and uncordon); 0 means no limit. Default 1.")
  @Min(0)
  public Integer maxParallelUpgrades;

  @JsonPropertyDescription(
      "Most nodes unavailable at once, counting nodes already cordoned or NotReady: a number, or a"
          + " percentage of the driver's nodes rounded up. Default 25%.")
  public IntOrString maxUnavailable;

  @JsonPropertyDescription("Wait for matching pods on a node to complete before upgrading it.")
  public WaitForCompletion waitForCompletion;

  @JsonPropertyDescription("Eviction of the pods using GPUs before the driver restarts.")
  public PodDeletion podDeletion;

  @JsonPropertyDescription("Optional drain of the node before the driver restarts.")
  public Drain drain;

  @JsonPropertyDescription(
      "Seconds the restarted driver and the node's validator have to become ready before the node"
          + " is marked upgrade-failed. Default 600. Not in the original (fixed there).")
  @Min(1)
  public Integer validationTimeoutSeconds;

  @JsonPropertyDescription(
      "Staged rollout (not in the original): canary nodes first, then waves of nodes, halting when"
          + " too many nodes fail.")
  public Rollout rollout;

  /** Wait for matching jobs on the node before upgrading it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class WaitForCompletion {
    @JsonPropertyDescription("Seconds to wait; 0 waits until the pods complete. Default 0.")
    @Min(0)
    public Integer timeoutSeconds;

    @JsonPropertyDescription(
        "Label selector of the pods to wait for, e.g. app=training; empty waits for nothing.")
    public String podSelector;
  }

  /** Deletion of GPU pods before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class PodDeletion {
    @JsonPropertyDescription(
        "Also delete GPU pods no controller manages (they are not recreated). Default false: such"
            + " a pod fails the node's upgrade.")
    public Boolean force;

    @JsonPropertyDescription(
        "Seconds to retry evictions (a PodDisruptionBudget may refuse them) and to wait for the"
            + " pods to go; then the node's upgrade fails. Default 300.")
    @Min(0)
    public Integer timeoutSeconds;

    @JsonPropertyDescription(
        "Also evict GPU pods with emptyDir volumes (their data is lost). Default false.")
    public Boolean deleteEmptyDir;
  }

  /** Node drain before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Drain {
    @JsonPropertyDescription("Evict every pod of the node, not only GPU pods. Default false.")
    public Boolean enable;

    @JsonPropertyDescription("Also delete pods no controller manages. Default false.")
    public Boolean force;

    @JsonPropertyDescription(
        "Label selector of the pods to drain; pods labelled"
            + " nvidia.com/gpu-driver-upgrade-drain.skip=true are never drained.")
    public String podSelector;

    @JsonPropertyDescription("Seconds the drain may take before the upgrade fails. Default 300.")
    @Min(0)
    public Integer timeoutSeconds;

    @JsonPropertyDescription("Also evict pods with emptyDir volumes. Default false.")
    public Boolean deleteEmptyDir;
  }

  /** Canary nodes, then waves, with an automatic halt. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Rollout {
    @JsonPropertyDescription(
        "Nodes upgraded first; no other node starts until every canary node is upgrade-done, and"
            + " a failed canary halts the rollout.")
    public Canary canary;

    @JsonPropertyDescription(
        "Nodes per wave after the canaries, in node-name order: a number, or a percentage of the"
            + " driver's nodes rounded up. A wave starts when every node of the waves before it is"
            + " done or failed. Empty: one wave.")
    public IntOrString waveSize;

    @JsonPropertyDescription(
        "Halt (start no further node) when more than this many nodes are upgrade-failed. Empty:"
            + " never halt.")
    @Min(0)
    public Integer maxFailedNodes;
  }

  /** The canary nodes: those matching a selector, or the first nodes by name. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Canary {
    @JsonPropertyDescription("Labels of the canary nodes (all must match).")
    public Map<String, String> nodeSelector;

    @JsonPropertyDescription(
        "Without nodeSelector: this many nodes, the first by name. With nodeSelector: at most this"
            + " many of the matching nodes.")
    @Min(1)
    public Integer count;
  }
}

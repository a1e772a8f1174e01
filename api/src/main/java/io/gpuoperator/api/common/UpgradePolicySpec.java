package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.IntOrString;

/** How driver upgrades roll across nodes (the original's driver.upgradePolicy). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradePolicySpec {
  public Boolean autoUpgrade;

  @Min(0)
  public Integer maxParallelUpgrades;

  public IntOrString maxUnavailable;

  public WaitForCompletion waitForCompletion;
  public PodDeletion podDeletion;
  public Drain drain;

  /** Wait for matching jobs on the node before upgrading it. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class WaitForCompletion {
    @Min(0)
    public Integer timeoutSeconds;

    public String podSelector;
  }

  /** Deletion of GPU pods before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class PodDeletion {
    public Boolean force;

    @Min(0)
    public Integer timeoutSeconds;

    public Boolean deleteEmptyDir;
  }

  /** Node drain before the driver restarts. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Drain {
    public Boolean enable;
    public Boolean force;
    public String podSelector;

    @Min(0)
    public Integer timeoutSeconds;

    public Boolean deleteEmptyDir;
  }
}

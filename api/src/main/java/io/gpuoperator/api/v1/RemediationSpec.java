package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * GPU fault remediation (not in the original): what the operator does about the GPU fault
 * conditions the plugins write on Nodes (GpuXidError, GpuEccError, GpuNvlinkError, GpuLost,
 * GpuThermal). Off unless enabled; with dryRun it only reports. The limits keep a cluster-wide
 * problem (a bad driver, a cooling failure) from draining every node.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationSpec {
  public static final String DEFAULT_MAX_CONCURRENT = "1";
  public static final String DEFAULT_MAX_FAULTY_NODES = "10%";
  public static final int DEFAULT_COOL_DOWN_SECONDS = 600;

  @Default("false")
  @JsonPropertyDescription(
      "Act on the nodes' GPU fault conditions (taint, drain, GPU reset, reboot request). Off by"
          + " default: the conditions are written either way.")
  public Boolean enabled;

  @Default("false")
  @JsonPropertyDescription(
      "Only report what would be done (Events and status), change no node and evict no pod.")
  public Boolean dryRun;

  @JsonPropertyDescription(
      "Most GPU nodes in remediation at once: a number, or a percentage of the cluster's GPU"
          + " nodes rounded up. Default 1.")
  public IntOrString maxConcurrent;

  @JsonPropertyDescription(
      "Circuit breaker: when more GPU nodes than this have a fault condition at once (a number,"
          + " or a percentage of all GPU nodes rounded up), remediation stops starting and the"
          + " ClusterPolicy reports it, as a cluster-wide problem is not fixed by draining"
          + " everything. Default 10%.")
  public IntOrString maxFaultyNodes;

  @Min(0)
  @JsonPropertyDescription(
      "Seconds a node that came back stays out of remediation before a new fault is acted on."
          + " Default 600.")
  public Integer coolDownSeconds;
}

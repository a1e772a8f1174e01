package io.gpuoperator.api.resource.v1beta1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** {@code ComputeDomain.spec}: how many nodes are expected and the channel its workloads claim. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self == oldSelf", message = "A computeDomain.spec is immutable")
public class ComputeDomainSpec {
  @Min(0)
  @Default("0")
  @JsonPropertyDescription(
      "Number of nodes (IMEX daemons) expected in the domain; the status is Ready once that many"
          + " nodes' daemons are ready. 0 (the default): Ready as soon as every joined node's"
          + " daemon is. Deprecated by NVIDIA, kept for compatibility.")
  public Integer numNodes;

  @Required
  @JsonPropertyDescription("The IMEX channel the domain's workloads claim.")
  public Channel channel;

  /** {@code spec.channel}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Channel {
    @Required
    @JsonPropertyDescription(
        "The ResourceClaimTemplate to create in the domain's namespace: pods reference it in"
            + " spec.resourceClaims to get the domain's channel.")
    public ResourceClaimTemplate resourceClaimTemplate;

    @Default("Single")
    @JsonPropertyDescription(
        "Single (default): one IMEX channel per claim; All: every channel of the IMEX domain.")
    public AllocationMode allocationMode;
  }

  /** {@code spec.channel.resourceClaimTemplate}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class ResourceClaimTemplate {
    @Required
    @JsonPropertyDescription("Name of the ResourceClaimTemplate.")
    public String name;
  }

  /** {@code spec.channel.allocationMode}, NVIDIA's values. */
  public enum AllocationMode {
    All,
    Single
  }
}

package io.gpuoperator.api.resource.v1beta1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import java.util.List;

/**
 * {@code ComputeDomain.status}: Ready once the expected nodes' IMEX daemons are ready, and each
 * joined node; for debugging, workloads should not wait on it (as NVIDIA says of theirs).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComputeDomainStatus {
  @Required
  @Default("NotReady")
  @JsonPropertyDescription("Ready or NotReady.")
  public Readiness status;

  @JsonPropertyDescription("The nodes whose IMEX daemon joined the domain.")
  public List<Node> nodes;

  /** Ready or NotReady, NVIDIA's values. */
  public enum Readiness {
    Ready,
    NotReady
  }

  /** One node of the domain: where its daemon runs and whether it is ready. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Node {
    @Required
    @JsonPropertyDescription("The node's name.")
    public String name;

    @Required
    @JsonPropertyDescription("The IP address of the node's IMEX daemon pod.")
    public String ipAddress;

    @Required
    @JsonPropertyDescription(
        "The node's NVLink clique (label nvidia.com/gpu.clique), empty without an NVLink fabric.")
    public String cliqueID;

    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyDescription("The node's index within its clique (unique per clique).")
    public Integer index;

    @Default("NotReady")
    @JsonPropertyDescription("Ready once the node's IMEX daemon is ready.")
    public Readiness status;
  }
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;

/**
 * What every operand section of the policy has: on/off, its image ({@link ImageSpec}) and how it
 * runs (resources, args, env). The schema prunes fields it does not know (the API server drops them
 * and warns, {@code plan} reports them), so a typo such as {@code enable: false} never passes
 * silently.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComponentSpec extends ImageSpec {
  @JsonPropertyDescription("Deploy this component (each section has its own default).")
  public Boolean enabled;

  @JsonPropertyDescription("CPU and memory requests and limits of the main container.")
  public ResourceRequirements resources;

  @JsonPropertyDescription(
      "Arguments of the main container: replace the image's for NVIDIA's images, follow the"
          + " subcommand for this project's.")
  public List<String> args;

  @JsonPropertyDescription(
      "Environment of the main container, merged by name over the operand's own; settings the"
          + " operator derives from other fields (MIG strategy, CDI) win.")
  public List<EnvVar> env;

  @JsonPropertyDescription(
      "Run the component's pods in the host's network namespace (dnsPolicy"
          + " ClusterFirstWithHostNet).")
  public Boolean hostNetwork;

  /** The tri-state {@code enabled} field resolved against the component's default. */
  public boolean isEnabled(boolean whenUnset) {
    return enabled == null ? whenUnset : enabled;
  }
}

package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;

/**
 * What every operand section of the policy has: on/off, image (repository/image/version, pull
 * policy and secrets) and how it runs (resources, args, env). The schema prunes fields it does not
 * know (the API server drops them and warns, {@code plan} reports them), so a typo such as {@code
 * enable: false} never passes silently.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ComponentSpec {
  @JsonPropertyDescription("Deploy this component (each section has its own default).")
  public Boolean enabled;

  @JsonPropertyDescription(
      "Image registry and path, e.g. nvcr.io/nvidia. Set repository, image and version together,"
          + " or image alone (a full reference), or none (the operator's default image).")
  public String repository;

  @JsonPropertyDescription("Image name, or a full image reference when repository is empty.")
  public String image;

  @JsonPropertyDescription("Image tag, or a digest (sha256:...).")
  public String version;

  @JsonPropertyDescription("Always, IfNotPresent or Never; anything else means IfNotPresent.")
  public String imagePullPolicy;

  @JsonPropertyDescription("Names of image pull secrets in the operator namespace.")
  public List<String> imagePullSecrets;

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

  /** The tri-state {@code enabled} field resolved against the component's default. */
  public boolean isEnabled(boolean whenUnset) {
    return enabled == null ? whenUnset : enabled;
  }
}

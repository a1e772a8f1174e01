package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every operand section of the policy has: on/off, image (repository/image/version, pull
 * policy and secrets) and how it runs (resources, args, env). Fields this project does not use yet
 * are kept as they were written (preserve-unknown-fields), never dropped.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@PreserveUnknownFields
public class ComponentSpec {
  @JsonPropertyDescription("Deploy this component.")
  public Boolean enabled;

  @JsonPropertyDescription("Image registry and path, e.g. nvcr.io/nvidia.")
  public String repository;

  @JsonPropertyDescription("Image name, or a full image reference when repository is empty.")
  public String image;

  @JsonPropertyDescription("Image tag, or a digest (sha256:...).")
  public String version;

  @JsonPropertyDescription("Always, IfNotPresent or Never; anything else means IfNotPresent.")
  public String imagePullPolicy;

  @JsonPropertyDescription("Names of image pull secrets in the operator namespace.")
  public List<String> imagePullSecrets;

  public ResourceRequirements resources;

  public List<String> args;

  public List<EnvVar> env;

  @JsonPropertyDescription(
      "Run the component's pods in the host's network namespace (dnsPolicy"
          + " ClusterFirstWithHostNet).")
  public Boolean hostNetwork;

  @JsonIgnore private final Map<String, Object> additionalProperties = new LinkedHashMap<>();

  @JsonAnyGetter
  public Map<String, Object> getAdditionalProperties() {
    return additionalProperties;
  }

  @JsonAnySetter
  public void setAdditionalProperty(String name, Object value) {
    additionalProperties.put(name, value);
  }

  /** The tri-state {@code enabled} field resolved against the component's default. */
  public boolean isEnabled(boolean whenUnset) {
    return enabled == null ? whenUnset : enabled;
  }
}

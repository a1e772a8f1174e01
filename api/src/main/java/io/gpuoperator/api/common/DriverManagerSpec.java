package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** The k8s-driver-manager init container of the vGPU and VFIO managers (image and env). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverManagerSpec {
  @JsonPropertyDescription("Image registry and path, e.g. nvcr.io/nvidia/cloud-native.")
  public String repository;

  @JsonPropertyDescription("Image name, or a full image reference when repository is empty.")
  public String image;

  @JsonPropertyDescription("Image tag, or a digest (sha256:...).")
  public String version;

  @JsonPropertyDescription("Always, IfNotPresent or Never; anything else means IfNotPresent.")
  public String imagePullPolicy;

  @JsonPropertyDescription("Names of image pull secrets in the operator namespace.")
  public List<String> imagePullSecrets;

  @JsonPropertyDescription("Environment of the driver manager (ENABLE_GPU_POD_EVICTION ...).")
  public List<EnvVar> env;
}

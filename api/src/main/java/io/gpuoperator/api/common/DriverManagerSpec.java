package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** The k8s-driver-manager init container of the vGPU and VFIO managers (image and env). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverManagerSpec extends ImageSpec {
  @JsonPropertyDescription("Environment of the driver manager (ENABLE_GPU_POD_EVICTION ...).")
  public List<EnvVar> env;
}

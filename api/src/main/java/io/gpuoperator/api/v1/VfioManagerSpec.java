package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverManagerSpec;

/** The VFIO manager (vm-passthrough nodes). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class VfioManagerSpec extends ComponentSpec {
  @JsonPropertyDescription("The driver manager init container of the VFIO manager.")
  public DriverManagerSpec driverManager;
}

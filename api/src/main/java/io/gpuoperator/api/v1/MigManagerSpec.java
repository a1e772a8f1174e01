package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The MIG manager, which applies nvidia.com/mig.config layouts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigManagerSpec extends ComponentSpec {
  @JsonPropertyDescription(
      "ConfigMap of MIG layouts (mig-parted config.yaml; default default-mig-parted-config) and"
          + " the layout nodes get when they do not choose one (default all-disabled).")
  public NamedRef config;

  @JsonPropertyDescription(
      "ConfigMap of the host GPU clients stopped while MIG is reconfigured (default"
          + " default-gpu-clients).")
  public NamedRef gpuClientsConfig;
}

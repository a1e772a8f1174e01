package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;

/** The MIG manager, which applies nvidia.com/mig.config layouts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigManagerSpec extends ComponentSpec {
  public NamedRef config;
  public NamedRef gpuClientsConfig;
}

package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.gpuoperator.api.common.ComponentSpec;

/** The NVIDIA container toolkit (runtime configuration and CDI specs). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ToolkitSpec extends ComponentSpec {
  @Default("/usr/local/nvidia")
  @JsonPropertyDescription("Where the toolkit's binaries are installed on the host.")
  public String installDir;
}

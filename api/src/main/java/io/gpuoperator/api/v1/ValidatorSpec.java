package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.EnvVar;
import java.util.List;

/** The validator and its per-component settings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ValidatorSpec extends ComponentSpec {
  public Component plugin;
  public Component toolkit;
  public Component driver;
  public Component cuda;
  public Component vfioPCI;
  public Component vgpuManager;
  public Component vgpuDevices;

  /** Environment for one validation component. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Component {
    public List<EnvVar> env;
  }
}

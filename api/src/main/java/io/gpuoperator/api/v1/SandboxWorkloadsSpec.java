package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** VM workloads (passthrough and vGPU). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SandboxWorkloadsSpec {
  public Boolean enabled;
  public Workload defaultWorkload;
  public Mode mode;

  /** The workload a GPU node runs; also the values of nvidia.com/gpu.workload.config. */
  public enum Workload {
    @JsonProperty("container")
    CONTAINER,
    @JsonProperty("vm-passthrough")
    VM_PASSTHROUGH,
    @JsonProperty("vm-vgpu")
    VM_VGPU
  }

  /** Sandbox runtime. */
  public enum Mode {
    @JsonProperty("kubevirt")
    KUBEVIRT,
    @JsonProperty("kata")
    KATA
  }
}

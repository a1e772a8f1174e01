package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** VM workloads (passthrough and vGPU). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SandboxWorkloadsSpec {
  @JsonPropertyDescription(
      "Let nodes run VM workloads: each GPU node's nvidia.com/gpu.workload.config label (or"
          + " defaultWorkload) chooses container, vm-passthrough or vm-vgpu.")
  public Boolean enabled;

  @JsonPropertyDescription("The workload of GPU nodes without the label (default container).")
  public Workload defaultWorkload;

  @JsonPropertyDescription("kubevirt (default) or kata.")
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

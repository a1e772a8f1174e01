package io.gpuoperator.node.gpu;

/**
 * An event from a GPU ({@code nvmlEventData_t}).
 *
 * @param type what happened
 * @param gpuIndex the GPU it happened on
 * @param gpuUuid that GPU's UUID
 * @param data the XID for XID events (999 = unknown), else event-specific
 * @param gpuInstanceId the GPU instance it concerns, or {@link #ALL_INSTANCES}
 * @param computeInstanceId the compute instance it concerns, or {@link #ALL_INSTANCES}
 */
public record GpuEvent(
    GpuEventType type,
    int gpuIndex,
    String gpuUuid,
    long data,
    int gpuInstanceId,
    int computeInstanceId) {

  /** NVML's 0xFFFFFFFF: the event is not tied to one MIG instance, so it concerns the whole GPU. */
  public static final int ALL_INSTANCES = 0xFFFFFFFF;

  /** True when the event concerns the whole GPU rather than one MIG instance. */
  public boolean wholeGpu() {
    return gpuInstanceId == ALL_INSTANCES || computeInstanceId == ALL_INSTANCES;
  }
}

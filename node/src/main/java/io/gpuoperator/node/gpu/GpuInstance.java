package io.gpuoperator.node.gpu;

/**
 * A GPU instance on a MIG-enabled GPU ({@code nvmlGpuInstanceInfo_t}).
 *
 * @param gpuIndex the parent GPU
 * @param id the GPU-instance id
 * @param profileId the GPU-instance profile id (as in {@link GpuInstanceProfile#id()})
 * @param placement its memory slices
 */
public record GpuInstance(int gpuIndex, int id, int profileId, Placement placement) {}

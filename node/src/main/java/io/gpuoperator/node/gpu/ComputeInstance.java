package io.gpuoperator.node.gpu;

/**
 * A compute instance inside a GPU instance ({@code nvmlComputeInstanceInfo_t}).
 *
 * @param gpuIndex the parent GPU
 * @param gpuInstanceId the GPU instance it lives in
 * @param id the compute-instance id
 * @param profileId the compute-instance profile id (as in {@link ComputeInstanceProfile#id()})
 */
public record ComputeInstance(int gpuIndex, int gpuInstanceId, int id, int profileId) {}

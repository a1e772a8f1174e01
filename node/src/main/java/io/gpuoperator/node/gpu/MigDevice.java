package io.gpuoperator.node.gpu;

/**
 * A MIG device: one compute instance of one GPU instance, addressable on its own.
 *
 * @param parentIndex index of the parent GPU
 * @param parentUuid UUID of the parent GPU
 * @param index position among the parent's MIG devices ({@code
 *     nvmlDeviceGetMigDeviceHandleByIndex})
 * @param uuid {@code MIG-<uuid>}
 * @param gpuInstanceId GPU-instance id
 * @param computeInstanceId compute-instance id
 * @param gpuInstanceProfileId GPU-instance profile id
 * @param computeInstanceProfileId compute-instance profile id
 * @param profile the profile name parts
 * @param attributes the device attributes
 * @param placement the GPU instance's memory slices
 */
public record MigDevice(
    int parentIndex,
    String parentUuid,
    int index,
    String uuid,
    int gpuInstanceId,
    int computeInstanceId,
    int gpuInstanceProfileId,
    int computeInstanceProfileId,
    MigProfile profile,
    MigAttributes attributes,
    Placement placement) {}

package io.gpuoperator.node.gpu;

/**
 * A compute-instance profile inside a GPU instance ({@code nvmlComputeInstanceProfileInfo_t}).
 *
 * @param index NVML's profile constant ({@code NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE} = 0 ...)
 * @param id the id create calls take
 * @param sliceCount compute slices
 * @param instanceCount most instances of this profile in one GPU instance
 * @param multiprocessorCount SMs
 * @param sharedCopyEngineCount copy engines shared with the GPU instance
 * @param sharedDecoderCount decoders
 * @param sharedEncoderCount encoders
 * @param sharedJpegCount JPEG engines
 * @param sharedOfaCount optical-flow engines
 */
public record ComputeInstanceProfile(
    int index,
    int id,
    int sliceCount,
    int instanceCount,
    int multiprocessorCount,
    int sharedCopyEngineCount,
    int sharedDecoderCount,
    int sharedEncoderCount,
    int sharedJpegCount,
    int sharedOfaCount) {}

package io.gpuoperator.node.gpu;

/**
 * What a MIG device has ({@code nvmlDeviceGetAttributes_v2}); feature discovery labels these.
 *
 * @param multiprocessorCount SMs
 * @param sharedCopyEngineCount copy engines
 * @param sharedDecoderCount decoders
 * @param sharedEncoderCount encoders
 * @param sharedJpegCount JPEG engines
 * @param sharedOfaCount optical-flow engines
 * @param gpuInstanceSliceCount GPU-instance slices
 * @param computeInstanceSliceCount compute-instance slices
 * @param memorySizeMb memory in MB
 */
public record MigAttributes(
    int multiprocessorCount,
    int sharedCopyEngineCount,
    int sharedDecoderCount,
    int sharedEncoderCount,
    int sharedJpegCount,
    int sharedOfaCount,
    int gpuInstanceSliceCount,
    int computeInstanceSliceCount,
    long memorySizeMb) {}

package io.gpuoperator.node.gpu;

/**
 * A GPU-instance profile a GPU supports ({@code nvmlGpuInstanceProfileInfo_t}).
 *
 * @param index NVML's profile constant ({@code NVML_GPU_INSTANCE_PROFILE_1_SLICE} = 0 ...)
 * @param id the id NVML reports and create calls take (e.g. 19 for {@code 1g.10gb})
 * @param profile the profile's name parts (C == G)
 * @param sliceCount compute slices
 * @param instanceCount most instances of this profile on one GPU
 * @param multiprocessorCount SMs
 * @param copyEngineCount copy engines
 * @param decoderCount decoders
 * @param encoderCount encoders
 * @param jpegCount JPEG engines
 * @param ofaCount optical-flow engines
 * @param memorySizeMb memory in MB
 * @param p2pSupported peer-to-peer support
 */
public record GpuInstanceProfile(
    int index,
    int id,
    MigProfile profile,
    int sliceCount,
    int instanceCount,
    int multiprocessorCount,
    int copyEngineCount,
    int decoderCount,
    int encoderCount,
    int jpegCount,
    int ofaCount,
    long memorySizeMb,
    boolean p2pSupported) {

  /** The profile name, e.g. {@code 1g.10gb+me}. */
  public String name() {
    return profile.name();
  }
}

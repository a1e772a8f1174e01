package io.gpuoperator.node.gpu.nvml;

/**
 * One concern {@link NvmlBackend} is split into (MIG, telemetry, profiling, topology, events): the
 * three handles each calls NVML through, held here once rather than wired again in each.
 */
abstract class NvmlConcern {
  /** Checks return codes and knows whether NVML was shut down. */
  final NvmlSession session;

  /** The library, {@code session.nvml()}. */
  final NvmlLibrary nvml;

  /** GPU index to device handle. */
  final NvmlGpus gpus;

  NvmlConcern(NvmlSession session, NvmlGpus gpus) {
    this.session = session;
    this.nvml = session.nvml();
    this.gpus = gpus;
  }
}

package io.gpuoperator.node.discovery;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.MigDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What feature discovery needs from the GPUs, read once per pass so the labels come from one
 * consistent view.
 *
 * @param driverVersion driver version string
 * @param cudaDriverVersion NVML-encoded CUDA version (12040 = 12.4)
 * @param gpus every GPU with its MIG state
 */
public record GpuSnapshot(String driverVersion, int cudaDriverVersion, List<Gpu> gpus) {

  /**
   * One GPU.
   *
   * @param device the GPU
   * @param migEnabled MIG mode currently enabled
   * @param migDevices its MIG devices (empty unless MIG is enabled)
   * @param fabric the multi-node NVLink fabric it is registered in, if any
   */
  public record Gpu(
      GpuDevice device,
      boolean migEnabled,
      List<MigDevice> migDevices,
      Optional<GpuFabric> fabric) {}

  /** Reads the backend. */
  public static GpuSnapshot read(GpuBackend backend) {
    List<Gpu> gpus = new ArrayList<>();
    for (GpuDevice d : backend.devices()) {
      boolean mig = d.migCapable() && backend.migMode(d.index()).current();
      gpus.add(
          new Gpu(
              d, mig, mig ? backend.migDevices(d.index()) : List.of(), backend.fabric(d.index())));
    }
    return new GpuSnapshot(backend.driverVersion(), backend.cudaDriverVersion(), gpus);
  }
}

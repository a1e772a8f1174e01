package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigGeometry;
import java.util.ArrayList;
import java.util.List;

/**
 * What the DRA plugin needs from the GPUs, read in one pass so a slice is published from one
 * consistent view.
 *
 * @param driverVersion the kernel driver's version
 * @param cudaDriverVersion NVML-encoded CUDA version
 * @param gpus every GPU in index order
 */
public record NodeGpus(String driverVersion, int cudaDriverVersion, List<Gpu> gpus) {

  public NodeGpus {
    gpus = List.copyOf(gpus);
  }

  /**
   * One GPU.
   *
   * @param device the GPU
   * @param migEnabled MIG mode currently on
   * @param migDevices its MIG devices (empty unless MIG is on)
   * @param geometry its MIG table (profiles, maximum counts, compute slices, placements), the same
   *     one MIG validation and the MIG manager use; null unless MIG is on
   * @param profiles its GPU-instance profiles with their engines and memory (empty unless MIG is
   *     on)
   * @param pcieRoot its PCIe root complex, null when unknown
   */
  public record Gpu(
      GpuDevice device,
      boolean migEnabled,
      List<MigDevice> migDevices,
      MigGeometry geometry,
      List<GpuInstanceProfile> profiles,
      String pcieRoot) {
    public Gpu {
      migDevices = List.copyOf(migDevices);
      profiles = List.copyOf(profiles);
    }

    /** The GPU-instance profile with this id. */
    public GpuInstanceProfile profile(int id) {
      return profiles.stream().filter(p -> p.id() == id).findFirst().orElseThrow();
    }
  }

  /** Reads the backend. A GPU whose MIG state cannot be read counts as a whole GPU. */
  public static NodeGpus read(GpuBackend backend, PcieRoots roots) {
    List<Gpu> gpus = new ArrayList<>();
    for (GpuDevice d : backend.devices()) {
      boolean mig = false;
      List<MigDevice> migDevices = List.of();
      MigGeometry geometry = null;
      List<GpuInstanceProfile> profiles = List.of();
      if (d.migCapable()) {
        try {
          mig = backend.migMode(d.index()).current();
        } catch (GpuBackendException.NotSupported e) {
          mig = false;
        }
        if (mig) {
          migDevices = backend.migDevices(d.index());
          geometry = MigGeometry.of(backend, d.index());
          profiles = backend.gpuInstanceProfiles(d.index());
        }
      }
      gpus.add(new Gpu(d, mig, migDevices, geometry, profiles, roots.root(d).orElse(null)));
    }
    return new NodeGpus(backend.driverVersion(), backend.cudaDriverVersion(), gpus);
  }
}

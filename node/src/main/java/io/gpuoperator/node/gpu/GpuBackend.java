package io.gpuoperator.node.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The one interface node agents use to ask GPUs questions and to partition them. Implemented by
 * {@link io.gpuoperator.node.gpu.nvml.NvmlBackend} (the real driver through NVML) and {@link
 * io.gpuoperator.node.gpu.sim.SimulatedBackend} (hardware profiles). GPUs are addressed by their
 * NVML index. Every failure is a {@link GpuBackendException} subclass naming the {@link GpuError};
 * implementations are thread-safe.
 */
public interface GpuBackend extends AutoCloseable {

  /** A short name for logs: {@code nvml} or {@code simulated}. */
  String kind();

  /** The kernel driver's version, e.g. {@code 550.54.15}. */
  String driverVersion();

  /** The CUDA version the driver supports, NVML-encoded: 12040 is CUDA 12.4. */
  int cudaDriverVersion();

  /** Every GPU, in index order. */
  List<GpuDevice> devices();

  /** The GPU at an index; {@link GpuBackendException.InvalidArgument} when there is none. */
  default GpuDevice device(int index) {
    List<GpuDevice> all = devices();
    if (index < 0 || index >= all.size()) {
      throw new GpuBackendException.InvalidArgument(
          "no GPU with index " + index + " (" + all.size() + " GPUs)", null);
    }
    return all.get(index);
  }

  /** The GPU with a UUID ({@code GPU-...}), if any. */
  default Optional<GpuDevice> deviceByUuid(String uuid) {
    return devices().stream().filter(d -> d.uuid().equals(uuid)).findFirst();
  }

  /** The MIG mode; {@link GpuBackendException.NotSupported} when the GPU is not MIG-capable. */
  MigMode migMode(int gpu);

  /**
   * Requests a MIG mode. It becomes current at the next {@link #resetGpu}; the returned mode shows
   * whether a reset is pending. Disabling while GPU instances exist fails with {@link
   * GpuBackendException.InUse}.
   */
  MigMode setMigMode(int gpu, boolean enabled);

  /**
   * Resets the GPU (like {@code nvidia-smi -r}): a pending MIG mode becomes current and every GPU
   * instance is gone. Fails with {@link GpuBackendException.InUse} while processes use it.
   */
  void resetGpu(int gpu);

  /**
   * The MIG devices of a GPU in {@code nvmlDeviceGetMigDeviceHandleByIndex} order; empty if none.
   */
  List<MigDevice> migDevices(int gpu);

  /** The MIG devices of every GPU. */
  default List<MigDevice> allMigDevices() {
    List<MigDevice> all = new ArrayList<>();
    for (GpuDevice d : devices()) {
      if (d.migCapable() && migMode(d.index()).current()) {
        all.addAll(migDevices(d.index()));
      }
    }
    return all;
  }

  /** The GPU-instance profiles this GPU supports, by profile index. */
  List<GpuInstanceProfile> gpuInstanceProfiles(int gpu);

  /** Every placement the profile could take on an empty GPU. */
  List<Placement> gpuInstancePossiblePlacements(int gpu, int profileId);

  /** How many more instances of the profile fit on the GPU as it is now. */
  int gpuInstanceRemainingCapacity(int gpu, int profileId);

  /** The GPU instances that exist, by id. */
  List<GpuInstance> gpuInstances(int gpu);

  /**
   * Creates a GPU instance where the driver chooses; {@link
   * GpuBackendException.InsufficientResources} when it does not fit.
   */
  GpuInstance createGpuInstance(int gpu, int profileId);

  /** Creates a GPU instance at a placement; fails when it overlaps or is not a valid placement. */
  GpuInstance createGpuInstance(int gpu, int profileId, Placement placement);

  /** Destroys a GPU instance; {@link GpuBackendException.InUse} while it has compute instances. */
  void destroyGpuInstance(int gpu, int gpuInstanceId);

  /** The compute-instance profiles a GPU instance supports. */
  List<ComputeInstanceProfile> computeInstanceProfiles(int gpu, int gpuInstanceId);

  /** The compute instances of a GPU instance. */
  List<ComputeInstance> computeInstances(int gpu, int gpuInstanceId);

  /** Creates a compute instance in a GPU instance. */
  ComputeInstance createComputeInstance(int gpu, int gpuInstanceId, int profileId);

  /** Destroys a compute instance. */
  void destroyComputeInstance(int gpu, int gpuInstanceId, int computeInstanceId);

  /** Reads the GPU's counters now. */
  Telemetry telemetry(int gpu);

  /**
   * Reads one MIG device's own counters now (by its index among the GPU's MIG devices): its
   * framebuffer. What NVML does not report per MIG device (utilisation, clocks, power,
   * temperatures, ECC) is {@link Telemetry#UNSUPPORTED}; those belong to the parent GPU.
   */
  Telemetry migTelemetry(int gpu, int migIndex);

  /**
   * Reads the GPU's profiling fields now ({@code DCGM_FI_PROF_*} without DCGM). Rates are over the
   * time since the previous call for the same GPU, so the first call may have no value for them;
   * what the GPU cannot give at all is in {@link Profiling#unavailable()} with the reason. Calls
   * for one GPU should come from one caller at a steady interval (the exporter's collection loop).
   */
  default Profiling profiling(int gpu) {
    return Profiling.none("the " + kind() + " backend does not read profiling fields");
  }

  /**
   * Why the GPU's clocks are held down now ({@code nvmlDeviceGetCurrentClocksEventReasons}): a bit
   * set of {@code nvmlClocksEventReason*} values (see {@link ClockEventReasons}). {@link
   * GpuBackendException.NotSupported} where the backend or the board does not report it.
   */
  default long clockEventReasons(int gpu) {
    throw new GpuBackendException.NotSupported(
        kind() + " backend does not report clock event reasons", null);
  }

  /**
   * The multi-node NVLink fabric the GPU is attached to, if any: empty for a GPU without one (no
   * fabric support, registration not completed, or a zero cluster UUID, as NVIDIA's DRA driver
   * treats them).
   */
  default Optional<GpuFabric> fabric(int gpu) {
    return Optional.empty();
  }

  /** How two GPUs are connected (PCIe level and NVLinks). */
  GpuLink link(int gpuA, int gpuB);

  /** The event types the GPU can report. */
  Set<GpuEventType> supportedEvents(int gpu);

  /**
   * Subscribes to events of the given types on every GPU that supports at least one of them. Only
   * events after this call are delivered.
   */
  GpuEventSubscription subscribe(Set<GpuEventType> types);

  /** Releases the backend ({@code nvmlShutdown}); calls after this fail with UNINITIALIZED. */
  @Override
  void close();
}

package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuError;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.GpuLink;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.Telemetry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@link GpuBackend} on the real driver through NVML ({@code libnvidia-ml.so.1}, JNA). Every
 * non-success return code becomes the {@link GpuBackendException} subclass of that code, with
 * NVML's own {@code nvmlErrorString} text. GPU reset is not in NVML's API; like mig-manager it runs
 * {@code nvidia-smi -r}, the driver's own (see {@link NvidiaSmi}).
 *
 * <p>This class opens, resets and closes; each concern has its own class over one {@link
 * NvmlSession}: {@link NvmlGpus} (the GPUs and their identity), {@link NvmlMig}, {@link
 * NvmlTelemetry}, {@link NvmlProfiling}, {@link NvmlTopology} and {@link NvmlEvents}.
 */
public final class NvmlBackend implements GpuBackend {
  /** The library's SONAME; found through the dynamic loader's search path. */
  public static final String LIBRARY = "libnvidia-ml.so.1";

  /** How long a GPU reset may take before it counts as failed. */
  private static final Duration RESET_TIMEOUT = Duration.ofSeconds(120);

  private final NvmlSession session;
  private final NvidiaSmi nvidiaSmi;
  private final NvmlGpus gpus;
  private final NvmlMig mig;
  private final NvmlTelemetry telemetry;
  private final NvmlProfiling profiling;
  private final NvmlTopology topology;
  private final NvmlEvents events;

  private NvmlBackend(NvmlSession session, NvmlGpus gpus, NvidiaSmi nvidiaSmi) {
    this.session = session;
    this.nvidiaSmi = nvidiaSmi;
    this.gpus = gpus;
    this.mig = new NvmlMig(session, gpus);
    this.telemetry = new NvmlTelemetry(session, gpus);
    this.profiling = new NvmlProfiling(session, gpus);
    this.topology = new NvmlTopology(session, gpus);
    this.events = new NvmlEvents(session, gpus);
  }

  /**
   * Loads NVML (a file path, or null for {@link #LIBRARY} through the loader's search path) and
   * initialises it. Fails with {@link GpuBackendException.LibraryNotFound} when the library cannot
   * be loaded and {@link GpuBackendException.DriverNotLoaded} on a machine without the driver.
   *
   * @param sysfsRoot where {@code bus/pci/devices} is read for PCI class and NUMA node ({@code
   *     /sys} on a host)
   */
  public static NvmlBackend open(Path library, Path sysfsRoot) {
    return open(library, sysfsRoot, NvidiaSmi.onPath());
  }

  /**
   * As {@link #open(Path, Path)}, with the {@code nvidia-smi} that {@link #resetGpu} runs (an agent
   * that resets GPUs passes its driver roots).
   */
  public static NvmlBackend open(Path library, Path sysfsRoot, NvidiaSmi nvidiaSmi) {
    return open(load(library), sysfsRoot, nvidiaSmi);
  }

  /** Initialises NVML through an already loaded binding; resets use nvidia-smi from PATH. */
  static NvmlBackend open(NvmlLibrary lib, Path sysfsRoot) {
    return open(lib, sysfsRoot, NvidiaSmi.onPath());
  }

  /** Initialises NVML through an already loaded binding. */
  static NvmlBackend open(NvmlLibrary lib, Path sysfsRoot, NvidiaSmi nvidiaSmi) {
    int rc = lib.nvmlInit_v2();
    if (rc != NvmlSession.SUCCESS) {
      String text = lib.nvmlErrorString(rc);
      GpuError error = GpuError.ofCode(rc);
      String hint =
          error == GpuError.DRIVER_NOT_LOADED
              ? " (NVIDIA driver not loaded: no NVIDIA kernel module is running on this machine)"
              : "";
      throw GpuBackendException.of(error, "nvmlInit_v2: " + text + hint);
    }
    NvmlSession session = new NvmlSession(lib);
    try {
      return new NvmlBackend(session, NvmlGpus.enumerate(session, sysfsRoot), nvidiaSmi);
    } catch (RuntimeException e) {
      lib.nvmlShutdown();
      throw e;
    }
  }

  /** Loads the binding without initialising NVML (the component test checks every symbol). */
  public static NvmlLibrary load(Path library) {
    String name = library == null ? LIBRARY : library.toAbsolutePath().toString();
    try {
      return Native.load(name, NvmlLibrary.class);
    } catch (UnsatisfiedLinkError e) {
      // JNA lists every place it looked; the loader's first reason is the one that matters.
      String[] lines = String.valueOf(e.getMessage()).split("\n");
      String reason = lines.length > 1 && lines[0].endsWith(":") ? lines[1].strip() : lines[0];
      throw new GpuBackendException.LibraryNotFound(
          "cannot load "
              + name
              + ": "
              + reason
              + " (is the NVIDIA driver installed? --nvml-library or NVML_LIBRARY selects the"
              + " file)",
          e);
    }
  }

  @Override
  public String kind() {
    return "nvml";
  }

  @Override
  public String driverVersion() {
    byte[] buf = new byte[80];
    session.check(
        session.nvml().nvmlSystemGetDriverVersion(buf, buf.length), "nvmlSystemGetDriverVersion");
    return NvmlStructs.cString(buf);
  }

  @Override
  public int cudaDriverVersion() {
    IntByReference v = new IntByReference();
    session.check(
        session.nvml().nvmlSystemGetCudaDriverVersion_v2(v), "nvmlSystemGetCudaDriverVersion_v2");
    return v.getValue();
  }

  @Override
  public List<GpuDevice> devices() {
    return gpus.devices();
  }

  /**
   * Runs {@code nvidia-smi -r -i <bus id>}, as mig-parted does. NVML has no call that resets a GPU:
   * its {@code nvmlDeviceReset*} functions reset clocks and counters only, and draining, removing
   * and rediscovering the GPU ({@code nvmlDeviceModifyDrainState}, {@code nvmlDeviceRemoveGpu_v2},
   * {@code nvmlDeviceDiscoverGpus}) detaches it from the OS and renumbers every GPU and handle
   * under the running agent.
   */
  @Override
  public void resetGpu(int gpu) {
    String busId = device(gpu).pciBusId();
    NvidiaSmi.Result r;
    try {
      r = nvidiaSmi.run(List.of("-r", "-i", busId), RESET_TIMEOUT);
    } catch (GpuBackendException.NotSupported e) {
      throw new GpuBackendException.NotSupported(
          "resetting GPU " + gpu + " needs nvidia-smi (NVML has no reset call): " + e.getMessage(),
          e);
    } catch (IOException e) {
      throw new GpuBackendException.Unknown("resetting GPU " + gpu + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GpuBackendException.Unknown("interrupted while resetting GPU " + gpu, e);
    }
    if (r.exitCode() != 0) {
      GpuError e = r.output().contains("in use") ? GpuError.IN_USE : GpuError.UNKNOWN;
      throw GpuBackendException.of(
          e, r.command() + " failed with exit code " + r.exitCode() + ": " + r.output());
    }
  }

  @Override
  public MigMode migMode(int gpu) {
    return mig.migMode(gpu);
  }

  @Override
  public MigMode setMigMode(int gpu, boolean enabled) {
    return mig.setMigMode(gpu, enabled);
  }

  @Override
  public List<MigDevice> migDevices(int gpu) {
    return mig.migDevices(gpu);
  }

  @Override
  public List<GpuInstanceProfile> gpuInstanceProfiles(int gpu) {
    return mig.gpuInstanceProfiles(gpu);
  }

  @Override
  public List<Placement> gpuInstancePossiblePlacements(int gpu, int profileId) {
    return mig.gpuInstancePossiblePlacements(gpu, profileId);
  }

  @Override
  public int gpuInstanceRemainingCapacity(int gpu, int profileId) {
    return mig.gpuInstanceRemainingCapacity(gpu, profileId);
  }

  @Override
  public List<GpuInstance> gpuInstances(int gpu) {
    return mig.gpuInstances(gpu);
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, int profileId) {
    return mig.createGpuInstance(gpu, profileId);
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, int profileId, Placement placement) {
    return mig.createGpuInstance(gpu, profileId, placement);
  }

  @Override
  public void destroyGpuInstance(int gpu, int gpuInstanceId) {
    mig.destroyGpuInstance(gpu, gpuInstanceId);
  }

  @Override
  public List<ComputeInstanceProfile> computeInstanceProfiles(int gpu, int gpuInstanceId) {
    return mig.computeInstanceProfiles(gpu, gpuInstanceId);
  }

  @Override
  public List<ComputeInstance> computeInstances(int gpu, int gpuInstanceId) {
    return mig.computeInstances(gpu, gpuInstanceId);
  }

  @Override
  public ComputeInstance createComputeInstance(int gpu, int gpuInstanceId, int profileId) {
    return mig.createComputeInstance(gpu, gpuInstanceId, profileId);
  }

  @Override
  public void destroyComputeInstance(int gpu, int gpuInstanceId, int computeInstanceId) {
    mig.destroyComputeInstance(gpu, gpuInstanceId, computeInstanceId);
  }

  @Override
  public Telemetry telemetry(int gpu) {
    return telemetry.telemetry(gpu);
  }

  @Override
  public Profiling profiling(int gpu) {
    return profiling.profiling(gpu);
  }

  /** GPM sample buffers held now, for the test that none leak. */
  int gpmSamplesHeld() {
    return profiling.samplesHeld();
  }

  @Override
  public long clockEventReasons(int gpu) {
    return telemetry.clockEventReasons(gpu);
  }

  @Override
  public Telemetry migTelemetry(int gpu, int migIndex) {
    return telemetry.migTelemetry(gpu, migIndex);
  }

  @Override
  public GpuLink link(int gpuA, int gpuB) {
    return topology.link(gpuA, gpuB);
  }

  @Override
  public Optional<GpuFabric> fabric(int gpu) {
    return topology.fabric(gpu);
  }

  @Override
  public Set<GpuEventType> supportedEvents(int gpu) {
    return events.supportedEvents(gpu);
  }

  @Override
  public GpuEventSubscription subscribe(Set<GpuEventType> types) {
    return events.subscribe(types);
  }

  @Override
  public void close() {
    profiling.close();
    session.shutdown();
  }
}

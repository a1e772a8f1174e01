package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.Telemetry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntToLongFunction;

/**
 * Reads one {@link NodeReading} from the GPU backend: every selected GPU or GPU instance with its
 * counters, and the device IDs pods can hold. A GPU whose calls fail (fallen off the bus) is left
 * out and named; a backend that fails as a whole (driver gone) throws, so the caller drops every
 * series instead of repeating old values.
 *
 * @param lastXid the last XID seen on a GPU index, 0 when none
 * @param profiling whether to read the profiling fields (GPM samples cost a driver call per GPU;
 *     skipped when the field list names none)
 */
public record GpuReader(
    GpuBackend backend, DeviceSelection selection, IntToLongFunction lastXid, boolean profiling) {
  /** The driver name NVIDIA's DRA driver registers, whose device names this reader maps. */
  public static final String DRA_DRIVER = "gpu.nvidia.com";

  /** Why a GPU instance's series carry no profiling fields. */
  static final String NO_INSTANCE_PROFILING =
      "profiling fields are read per GPU, not per GPU instance (nvmlGpmMigSampleGet is not used)";

  /** Why no profiling field was read: the field list names none. */
  static final String PROFILING_NOT_LISTED = "no profiling field is in the field list";

  /** A reader that reads the profiling fields too. */
  public GpuReader(GpuBackend backend, DeviceSelection selection, IntToLongFunction lastXid) {
    this(backend, selection, lastXid, true);
  }

  /** Reads everything now. */
  public NodeReading read() {
    String driver = backend.driverVersion();
    List<GpuDevice> gpus = backend.devices();
    List<NodeReading.Entity> entities = new ArrayList<>();
    Map<String, DeviceKey> ids = new LinkedHashMap<>();
    Map<Integer, String> failed = new LinkedHashMap<>();
    for (GpuDevice gpu : gpus) {
      try {
        read(gpu, entities, ids);
      } catch (GpuBackendException.GpuIsLost
          | GpuBackendException.GpuNotFound
          | GpuBackendException.ResetRequired
          | GpuBackendException.Unknown e) {
        failed.put(gpu.index(), e.getMessage());
        entities.removeIf(x -> x.key().gpu() == gpu.index());
      }
    }
    return new NodeReading(driver, List.copyOf(entities), Map.copyOf(ids), Map.copyOf(failed));
  }

  private void read(GpuDevice gpu, List<NodeReading.Entity> out, Map<String, DeviceKey> ids) {
    DeviceKey whole = DeviceKey.gpu(gpu.index());
    ids.put(gpu.uuid(), whole);
    ids.put("nvidia" + gpu.minor(), whole);
    ids.put("gpu-" + gpu.minor(), whole);
    boolean mig = gpu.migCapable() && backend.migMode(gpu.index()).current();
    Telemetry parent = backend.telemetry(gpu.index());
    long xid = lastXid.applyAsLong(gpu.index());
    if (selection.wholeGpu(gpu.index(), mig)) {
      out.add(new NodeReading.Entity(whole, gpu, null, parent, parent, xid, profiling(gpu)));
    }
    if (!mig) {
      return;
    }
    Set<Integer> seenInstances = new HashSet<>();
    for (MigDevice m : backend.migDevices(gpu.index())) {
      DeviceKey key = new DeviceKey(gpu.index(), m.gpuInstanceId());
      ids.put(m.uuid(), key);
      ids.put(draName(gpu, m), key);
      // One series per GPU instance, as DCGM's GPU_I entities; further compute instances of the
      // same GPU instance map to it.
      if (seenInstances.add(m.gpuInstanceId()) && selection.gpuInstance(m.gpuInstanceId())) {
        Telemetry own = backend.migTelemetry(gpu.index(), m.index());
        out.add(
            new NodeReading.Entity(
                key, gpu, m, own, parent, xid, Profiling.none(NO_INSTANCE_PROFILING)));
      }
    }
  }

  private Profiling profiling(GpuDevice gpu) {
    if (!profiling) {
      return Profiling.none(PROFILING_NOT_LISTED);
    }
    try {
      return backend.profiling(gpu.index());
    } catch (GpuBackendException.NotSupported e) {
      return Profiling.none(e.getMessage());
    }
  }

  /**
   * The name NVIDIA's DRA driver gives a MIG device: {@code gpu-<minor>-mig-<profile without
   * dots>-<GI profile id>-<placement start>}, e.g. {@code gpu-0-mig-1g10gb-19-0}.
   */
  static String draName(GpuDevice gpu, MigDevice m) {
    return "gpu-"
        + gpu.minor()
        + "-mig-"
        + m.profile().name().replace(".", "")
        + "-"
        + m.gpuInstanceProfileId()
        + "-"
        + m.placement().start();
  }
}

package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The profiling fields through NVML for {@link NvmlBackend}: the activity ratios from GPU
 * performance monitoring (GPM, Hopper and later), PCIe traffic from {@code
 * nvmlDeviceGetPcieThroughput} and NVLink traffic from the per-link {@code
 * NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX} counters, so pre-Hopper GPUs still give traffic.
 *
 * <p>GPM metrics are computed by NVML from two samples: each reading takes a sample and computes
 * against the previous reading's, so the first reading of a GPU has no GPM values and later ones
 * cover the time between readings. Each GPU owns two sample buffers, allocated on its first reading
 * and reused (the older becomes the next one to fill); {@link #close} frees them all. NVLink rates
 * are the counters' growth over the field values' own timestamps.
 */
final class NvmlProfiling extends NvmlConcern implements AutoCloseable {
  /** Each GPM field's NVML metric ({@code NVML_GPM_METRIC_<name>}); NVML gives percent. */
  enum Gpm {
    GRAPHICS_UTIL(ProfilingMetric.GR_ENGINE_ACTIVE, 1),
    SM_UTIL(ProfilingMetric.SM_ACTIVE, 2),
    SM_OCCUPANCY(ProfilingMetric.SM_OCCUPANCY, 3),
    INTEGER_UTIL(ProfilingMetric.PIPE_INT_ACTIVE, 4),
    ANY_TENSOR_UTIL(ProfilingMetric.PIPE_TENSOR_ACTIVE, 5),
    DFMA_TENSOR_UTIL(ProfilingMetric.PIPE_TENSOR_DFMA_ACTIVE, 6),
    HMMA_TENSOR_UTIL(ProfilingMetric.PIPE_TENSOR_HMMA_ACTIVE, 7),
    IMMA_TENSOR_UTIL(ProfilingMetric.PIPE_TENSOR_IMMA_ACTIVE, 9),
    DRAM_BW_UTIL(ProfilingMetric.DRAM_ACTIVE, 10),
    FP64_UTIL(ProfilingMetric.PIPE_FP64_ACTIVE, 11),
    FP32_UTIL(ProfilingMetric.PIPE_FP32_ACTIVE, 12),
    FP16_UTIL(ProfilingMetric.PIPE_FP16_ACTIVE, 13);

    final ProfilingMetric metric;
    final int id;

    Gpm(ProfilingMetric metric, int id) {
      this.metric = metric;
      this.id = id;
    }

    /** The enum constant's name in nvml.h. */
    String cName() {
      return "NVML_GPM_METRIC_" + name();
    }
  }

  /** {@code nvmlDeviceGetPcieThroughput} answers in KB/s (1 KB granularity). */
  private static final double PCIE_KB = 1024;

  /** The NVLink throughput fields count KiB. */
  private static final double NVLINK_KIB = 1024;

  /** What is kept between readings of one GPU. */
  private static final class State {
    /** Null until asked; then whether GPM works, with {@link #noGpm} saying why not. */
    Boolean gpm;

    String noGpm;
    Pointer previous;
    Pointer spare;
    long nvlinkAtMicros = -1;
    long nvlinkTxKib;
    long nvlinkRxKib;
  }

  private final Map<Integer, State> states = new HashMap<>();
  private int samplesHeld;
  private boolean closed;

  NvmlProfiling(NvmlSession session, NvmlGpus gpus) {
    super(session, gpus);
  }

  synchronized Profiling profiling(int gpu) {
    if (closed) {
      // Samples allocated now would outlive close(), which has already freed the others.
      throw new GpuBackendException.Uninitialized("NVML was shut down", null);
    }
    Pointer h = gpus.handle(gpu);
    State s = states.computeIfAbsent(gpu, i -> new State());
    Map<ProfilingMetric, Double> values = new EnumMap<>(ProfilingMetric.class);
    Map<ProfilingMetric, String> why = new EnumMap<>(ProfilingMetric.class);
    gpm(h, s, values, why);
    pcie(h, values, why);
    nvlink(h, s, values, why);
    return new Profiling(values, why);
  }

  private void gpm(
      Pointer h, State s, Map<ProfilingMetric, Double> values, Map<ProfilingMetric, String> why) {
    if (s.gpm == null) {
      s.noGpm = gpmMissing(h);
      s.gpm = s.noGpm == null;
    }
    if (!s.gpm) {
      for (Gpm g : Gpm.values()) {
        why.put(g.metric, s.noGpm);
      }
      return;
    }
    if (s.spare == null) {
      s.spare = allocate();
    }
    int rc = nvml.nvmlGpmSampleGet(h, s.spare);
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      // GPM is off for this GPU now (e.g. MIG mode on): say so rather than leave blanks.
      for (Gpm g : Gpm.values()) {
        why.put(g.metric, "nvmlGpmSampleGet: " + nvml.nvmlErrorString(rc));
      }
      return;
    }
    session.check(rc, "nvmlGpmSampleGet");
    Pointer current = s.spare;
    if (s.previous != null) {
      metrics(s.previous, current, values, why);
    }
    s.spare = s.previous;
    s.previous = current;
  }

  /** Why the GPU has no GPM, or null when it has. */
  private String gpmMissing(Pointer h) {
    Memory support = Struct.GPM_SUPPORT.allocate();
    support.setInt(Field.GPM_SUPPORT_VERSION.offset, NvmlStructs.GPM_SUPPORT_VERSION);
    int rc;
    try {
      rc = nvml.nvmlGpmQueryDeviceSupport(h, support);
    } catch (UnsatisfiedLinkError e) {
      return Profiling.NO_GPM + " and a driver whose NVML has GPM (no nvmlGpmQueryDeviceSupport)";
    }
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return Profiling.NO_GPM;
    }
    session.check(rc, "nvmlGpmQueryDeviceSupport");
    return Field.GPM_SUPPORT_IS_SUPPORTED.getInt(support) != 0 ? null : Profiling.NO_GPM;
  }

  private Pointer allocate() {
    PointerByReference ref = new PointerByReference();
    session.check(nvml.nvmlGpmSampleAlloc(ref), "nvmlGpmSampleAlloc");
    samplesHeld++;
    return ref.getValue();
  }

  private void metrics(
      Pointer first,
      Pointer second,
      Map<ProfilingMetric, Double> values,
      Map<ProfilingMetric, String> why) {
    Gpm[] all = Gpm.values();
    Memory get = Struct.GPM_METRICS_GET.allocate();
    get.setInt(Field.GPM_GET_VERSION.offset, NvmlStructs.GPM_METRICS_GET_VERSION);
    get.setInt(Field.GPM_GET_NUM_METRICS.offset, all.length);
    get.setPointer(Field.GPM_GET_SAMPLE1.offset, first);
    get.setPointer(Field.GPM_GET_SAMPLE2.offset, second);
    for (int i = 0; i < all.length; i++) {
      get.setInt(metric(i) + Field.GPM_METRIC_ID.offset, all[i].id);
    }
    session.check(nvml.nvmlGpmMetricsGet(get), "nvmlGpmMetricsGet");
    for (int i = 0; i < all.length; i++) {
      int rc = get.getInt(metric(i) + Field.GPM_METRIC_RETURN.offset);
      if (rc == NvmlSession.SUCCESS) {
        double percent = get.getDouble(metric(i) + Field.GPM_METRIC_VALUE.offset);
        values.put(all[i].metric, Math.max(0, Math.min(1, percent / 100)));
      } else if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
        why.put(all[i].metric, all[i].cName() + ": " + nvml.nvmlErrorString(rc));
      }
      // Any other per-metric error leaves this reading without the value; the next may have it.
    }
  }

  private static long metric(int i) {
    return Field.GPM_GET_METRICS.offset + (long) i * Struct.GPM_METRIC.size;
  }

  private void pcie(
      Pointer h, Map<ProfilingMetric, Double> values, Map<ProfilingMetric, String> why) {
    pcie(h, NvmlStructs.PCIE_UTIL_TX_BYTES, ProfilingMetric.PCIE_TX_BYTES, values, why);
    pcie(h, NvmlStructs.PCIE_UTIL_RX_BYTES, ProfilingMetric.PCIE_RX_BYTES, values, why);
  }

  private void pcie(
      Pointer h,
      int counter,
      ProfilingMetric metric,
      Map<ProfilingMetric, Double> values,
      Map<ProfilingMetric, String> why) {
    IntByReference kb = new IntByReference();
    int rc = nvml.nvmlDeviceGetPcieThroughput(h, counter, kb);
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      why.put(metric, "nvmlDeviceGetPcieThroughput: " + nvml.nvmlErrorString(rc));
      return;
    }
    session.check(rc, "nvmlDeviceGetPcieThroughput");
    values.put(metric, Integer.toUnsignedLong(kb.getValue()) * PCIE_KB);
  }

  private void nvlink(
      Pointer h, State s, Map<ProfilingMetric, Double> values, Map<ProfilingMetric, String> why) {
    int links = NvmlStructs.NVLINK_MAX_LINKS;
    Memory fv = Struct.FIELD_VALUE.allocate(2 * links);
    for (int l = 0; l < 2 * links; l++) {
      long at = (long) l * Struct.FIELD_VALUE.size;
      fv.setInt(
          at + Field.FV_FIELD_ID.offset,
          l < links
              ? NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_TX
              : NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_RX);
      fv.setInt(at + Field.FV_SCOPE_ID.offset, l % links);
    }
    int rc = nvml.nvmlDeviceGetFieldValues(h, 2 * links, fv);
    if (rc != NvmlSession.ERROR_NOT_SUPPORTED) {
      session.check(rc, "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX)");
    }
    long tx = 0;
    long rx = 0;
    int answered = 0;
    long atMicros = 0;
    for (int l = 0; rc == NvmlSession.SUCCESS && l < 2 * links; l++) {
      long at = (long) l * Struct.FIELD_VALUE.size;
      if (fv.getInt(at + Field.FV_RETURN.offset) != NvmlSession.SUCCESS) {
        continue; // a link the GPU does not have or that is down
      }
      long kib = NvmlStructs.fieldValue(fv, at);
      if (l < links) {
        tx += kib;
      } else {
        rx += kib;
      }
      answered++;
      atMicros = Math.max(atMicros, fv.getLong(at + Field.FV_TIMESTAMP.offset));
    }
    if (answered == 0) {
      why.put(ProfilingMetric.NVLINK_TX_BYTES, Profiling.NO_NVLINK);
      why.put(ProfilingMetric.NVLINK_RX_BYTES, Profiling.NO_NVLINK);
      return;
    }
    // A counter that went backwards (driver reloaded) gives no rate this time.
    if (s.nvlinkAtMicros >= 0
        && atMicros > s.nvlinkAtMicros
        && tx >= s.nvlinkTxKib
        && rx >= s.nvlinkRxKib) {
      double seconds = (atMicros - s.nvlinkAtMicros) / 1e6;
      values.put(ProfilingMetric.NVLINK_TX_BYTES, (tx - s.nvlinkTxKib) * NVLINK_KIB / seconds);
      values.put(ProfilingMetric.NVLINK_RX_BYTES, (rx - s.nvlinkRxKib) * NVLINK_KIB / seconds);
    }
    s.nvlinkAtMicros = atMicros;
    s.nvlinkTxKib = tx;
    s.nvlinkRxKib = rx;
  }

  /** GPM sample buffers held now (two per GPU that has GPM and was read). */
  synchronized int samplesHeld() {
    return samplesHeld;
  }

  /** Frees every GPM sample; call before NVML shuts down. */
  @Override
  public synchronized void close() {
    closed = true;
    for (State s : states.values()) {
      free(s.previous);
      free(s.spare);
      s.previous = null;
      s.spare = null;
    }
    states.clear();
  }

  private void free(Pointer sample) {
    if (sample != null) {
      nvml.nvmlGpmSampleFree(sample);
      samplesHeld--;
    }
  }
}

package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuError;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.ProfilingMetric;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * A test stand-in for the NVML C library that answers from a {@link SimulatedBackend}, writing
 * structs at the offsets NvmlBindingTest checks against nvml.h. It lets NvmlBackend's logic (handle
 * walking, MIG enumeration, error mapping, telemetry, events) run without a GPU; the real library
 * is exercised by NvmlLibraryTest.
 */
final class SimulatedNvml implements NvmlLibrary {
  private static final long GPU = 0x1000;
  private static final long MIG = 0x100000;
  private static final long GI = 0x200000;
  private static final long CI = 0x300000;
  private static final long SET = 0x400000;

  private static final long SAMPLE = 0x500000;

  /** NVML_GPM_METRIC_* ids (nvml.h) to the fields they give, in percent. */
  private static final Map<Integer, ProfilingMetric> GPM_IDS =
      Map.ofEntries(
          Map.entry(1, ProfilingMetric.GR_ENGINE_ACTIVE),
          Map.entry(2, ProfilingMetric.SM_ACTIVE),
          Map.entry(3, ProfilingMetric.SM_OCCUPANCY),
          Map.entry(4, ProfilingMetric.PIPE_INT_ACTIVE),
          Map.entry(5, ProfilingMetric.PIPE_TENSOR_ACTIVE),
          Map.entry(6, ProfilingMetric.PIPE_TENSOR_DFMA_ACTIVE),
          Map.entry(7, ProfilingMetric.PIPE_TENSOR_HMMA_ACTIVE),
          Map.entry(9, ProfilingMetric.PIPE_TENSOR_IMMA_ACTIVE),
          Map.entry(10, ProfilingMetric.DRAM_ACTIVE),
          Map.entry(11, ProfilingMetric.PIPE_FP64_ACTIVE),
          Map.entry(12, ProfilingMetric.PIPE_FP32_ACTIVE),
          Map.entry(13, ProfilingMetric.PIPE_FP16_ACTIVE));

  /** NVLinks the stand-in answers for on a GPU with NVLink; higher links are NOT_SUPPORTED. */
  static final int NVLINKS = 4;

  private final SimulatedBackend sim;
  private final Clock clock;

  /**
   * What nvmlDeviceGetGpuFabricInfo reports for a GPU in the simulator's fabric (a GPU outside it
   * gets NOT_SUPPORTED): the call's return code, the registration state and status, and whether the
   * cluster UUID is zero. Tests change them to reach NvmlBackend's other answers.
   */
  int fabricReturn = 0;

  int fabricState = NvmlStructs.GPU_FABRIC_STATE_COMPLETED;
  int fabricStatus = 0;
  boolean fabricZeroUuid;

  /** Live GPM samples: handle to what it holds (null until nvmlGpmSampleGet filled it). */
  private final Map<Long, Profiling> samples = new HashMap<>();

  private long nextSample;
  int samplesAllocated;
  int samplesFreed;

  /** Per GPU: NVLink KiB sent and received so far, and when they were last advanced. */
  private final Map<Integer, double[]> nvlink = new HashMap<>();

  private boolean initialised;
  private final Map<Long, GpuEventSubscription> sets = new HashMap<>();
  private long nextSet;

  SimulatedNvml(SimulatedBackend sim) {
    this(sim, Clock.systemUTC());
  }

  /** A stand-in whose field-value timestamps (NVLink counters) follow the given clock. */
  SimulatedNvml(SimulatedBackend sim, Clock clock) {
    this.sim = sim;
    this.clock = clock;
  }

  private static int call(IntSupplier body) {
    try {
      return body.getAsInt();
    } catch (GpuBackendException e) {
      return e.error().code();
    }
  }

  private int run(Runnable body) {
    if (!initialised) {
      return GpuError.UNINITIALIZED.code();
    }
    return call(
        () -> {
          body.run();
          return 0;
        });
  }

  private static int gpu(Pointer p) {
    return (int) (Pointer.nativeValue(p) - GPU);
  }

  private static Pointer ptr(long v) {
    return new Pointer(v);
  }

  private static void chars(byte[] buf, String s) {
    byte[] b = s.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(b, 0, buf, 0, Math.min(b.length, buf.length - 1));
  }

  private MigDevice mig(Pointer p) {
    long v = Pointer.nativeValue(p) - MIG;
    int gpu = (int) (v / 0x1000);
    int index = (int) (v % 0x1000);
    return sim.migDevices(gpu).get(index);
  }

  private static Pointer giHandle(int gpu, int gi) {
    return ptr(GI + gpu * 0x1000L + gi);
  }

  private static int[] gi(Pointer p) {
    long v = Pointer.nativeValue(p) - GI;
    return new int[] {(int) (v / 0x1000), (int) (v % 0x1000)};
  }

  private static Pointer ciHandle(int gpu, int gi, int ci) {
    return ptr(CI + gpu * 0x10000L + gi * 0x100L + ci);
  }

  private static int[] ci(Pointer p) {
    long v = Pointer.nativeValue(p) - CI;
    return new int[] {(int) (v / 0x10000), (int) (v % 0x10000 / 0x100), (int) (v % 0x100)};
  }

  private int telemetry(
      Pointer d, java.util.function.ToLongFunction<Telemetry> f, IntByReference out) {
    return run(
        () -> {
          long v = f.applyAsLong(sim.telemetry(gpu(d)));
          if (v == Telemetry.UNSUPPORTED) {
            throw new GpuBackendException.NotSupported("unsupported", null);
          }
          out.setValue((int) v);
        });
  }

  @Override
  public int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, Memory values) {
    return run(
        () -> {
          Telemetry t = sim.telemetry(gpu(device));
          long micros = clock.millis() * 1000;
          double[] kib = nvlinkCounters(gpu(device), micros);
          for (int i = 0; i < valuesCount; i++) {
            long base = (long) i * NvmlStructs.Struct.FIELD_VALUE.size;
            int field = values.getInt(base + NvmlStructs.Field.FV_FIELD_ID.offset);
            if (field == NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_TX
                || field == NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_RX) {
              int link = values.getInt(base + NvmlStructs.Field.FV_SCOPE_ID.offset);
              boolean has = kib != null && link < NVLINKS;
              values.setInt(base + NvmlStructs.Field.FV_RETURN.offset, has ? 0 : 3);
              values.setLong(base + NvmlStructs.Field.FV_TIMESTAMP.offset, micros);
              values.setInt(
                  base + NvmlStructs.Field.FV_VALUE_TYPE.offset,
                  NvmlStructs.VALUE_TYPE_UNSIGNED_LONG_LONG);
              int dir = field == NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_TX ? 0 : 1;
              values.setLong(
                  base + NvmlStructs.Field.FV_VALUE.offset,
                  has ? (long) Math.floor(kib[dir] / NVLINKS) : 0);
              continue;
            }
            long v = field == NvmlStructs.FI_DEV_MEMORY_TEMP ? t.memoryTemperatureCelsius() : -1;
            values.setInt(
                base + NvmlStructs.Field.FV_RETURN.offset,
                v == Telemetry.UNSUPPORTED ? 3 /* NOT_SUPPORTED */ : 0);
            values.setInt(
                base + NvmlStructs.Field.FV_VALUE_TYPE.offset, NvmlStructs.VALUE_TYPE_UNSIGNED_INT);
            values.setInt(base + NvmlStructs.Field.FV_VALUE.offset, (int) Math.max(0, v));
          }
        });
  }

  /**
   * The GPU's NVLink counters advanced to now at the simulator's current rates (KiB), or null for a
   * GPU without NVLink.
   */
  private double[] nvlinkCounters(int gpu, long micros) {
    Profiling p = sim.profiling(gpu);
    if (p.unavailable().containsKey(ProfilingMetric.NVLINK_TX_BYTES)) {
      return null;
    }
    double[] c = nvlink.computeIfAbsent(gpu, g -> new double[] {1e6, 2e6, micros});
    double seconds = (micros - c[2]) / 1e6;
    c[0] += p.value(ProfilingMetric.NVLINK_TX_BYTES) * seconds / 1024;
    c[1] += p.value(ProfilingMetric.NVLINK_RX_BYTES) * seconds / 1024;
    c[2] = micros;
    return c;
  }

  @Override
  public int nvmlDeviceGetPcieThroughput(Pointer device, int counter, IntByReference value) {
    return run(
        () -> {
          Profiling p = sim.profiling(gpu(device));
          ProfilingMetric m =
              counter == NvmlStructs.PCIE_UTIL_TX_BYTES
                  ? ProfilingMetric.PCIE_TX_BYTES
                  : ProfilingMetric.PCIE_RX_BYTES;
          if (counter > 1 || p.unavailable().containsKey(m)) {
            throw new GpuBackendException.NotSupported("no PCIe counter", null);
          }
          value.setValue((int) Math.round(p.value(m) / 1024));
        });
  }

  @Override
  public int nvmlGpmQueryDeviceSupport(Pointer device, Memory gpmSupport) {
    return run(
        () -> {
          if (gpmSupport.getInt(0) != NvmlStructs.GPM_SUPPORT_VERSION) {
            throw GpuBackendException.of(GpuError.ARGUMENT_VERSION_MISMATCH, "version");
          }
          boolean gpm =
              !sim.profiling(gpu(device)).unavailable().containsKey(ProfilingMetric.SM_ACTIVE);
          gpmSupport.setInt(NvmlStructs.Field.GPM_SUPPORT_IS_SUPPORTED.offset, gpm ? 1 : 0);
        });
  }

  @Override
  public int nvmlGpmSampleAlloc(PointerByReference gpmSample) {
    return run(
        () -> {
          long h = SAMPLE + nextSample++;
          samples.put(h, null);
          samplesAllocated++;
          gpmSample.setValue(ptr(h));
        });
  }

  @Override
  public int nvmlGpmSampleFree(Pointer gpmSample) {
    return run(
        () -> {
          long h = Pointer.nativeValue(gpmSample);
          if (!samples.containsKey(h)) {
            throw new GpuBackendException.InvalidArgument("not a live sample: " + h, null);
          }
          samples.remove(h);
          samplesFreed++;
        });
  }

  @Override
  public int nvmlGpmSampleGet(Pointer device, Pointer gpmSample) {
    return run(
        () -> {
          long h = Pointer.nativeValue(gpmSample);
          if (!samples.containsKey(h)) {
            throw new GpuBackendException.InvalidArgument("not a live sample: " + h, null);
          }
          samples.put(h, sim.profiling(gpu(device)));
        });
  }

  /**
   * Answers from the second sample's simulator reading (the simulator's values are already rates
   * over its own model), in NVML's percent.
   */
  @Override
  public int nvmlGpmMetricsGet(Memory get) {
    return run(
        () -> {
          if (get.getInt(NvmlStructs.Field.GPM_GET_VERSION.offset)
              != NvmlStructs.GPM_METRICS_GET_VERSION) {
            throw GpuBackendException.of(GpuError.ARGUMENT_VERSION_MISMATCH, "version");
          }
          long first =
              Pointer.nativeValue(get.getPointer(NvmlStructs.Field.GPM_GET_SAMPLE1.offset));
          long second =
              Pointer.nativeValue(get.getPointer(NvmlStructs.Field.GPM_GET_SAMPLE2.offset));
          if (samples.get(first) == null || samples.get(second) == null || first == second) {
            throw new GpuBackendException.InvalidArgument("two filled samples needed", null);
          }
          Profiling p = samples.get(second);
          int n = get.getInt(NvmlStructs.Field.GPM_GET_NUM_METRICS.offset);
          for (int i = 0; i < n; i++) {
            long at =
                NvmlStructs.Field.GPM_GET_METRICS.offset
                    + (long) i * NvmlStructs.Struct.GPM_METRIC.size;
            ProfilingMetric m =
                GPM_IDS.get(get.getInt(at + NvmlStructs.Field.GPM_METRIC_ID.offset));
            boolean ok = m != null && p.values().containsKey(m);
            get.setInt(at + NvmlStructs.Field.GPM_METRIC_RETURN.offset, ok ? 0 : 3);
            get.setDouble(
                at + NvmlStructs.Field.GPM_METRIC_VALUE.offset, ok ? p.value(m) * 100 : 0);
          }
        });
  }

  @Override
  public int nvmlInit_v2() {
    initialised = true;
    return 0;
  }

  @Override
  public int nvmlShutdown() {
    initialised = false;
    return 0;
  }

  @Override
  public String nvmlErrorString(int result) {
    return GpuError.ofCode(result).name();
  }

  @Override
  public int nvmlSystemGetDriverVersion(byte[] version, int length) {
    return run(() -> chars(version, sim.driverVersion()));
  }

  @Override
  public int nvmlSystemGetCudaDriverVersion_v2(IntByReference v) {
    return run(() -> v.setValue(sim.cudaDriverVersion()));
  }

  @Override
  public int nvmlDeviceGetCount_v2(IntByReference count) {
    return run(() -> count.setValue(sim.devices().size()));
  }

  @Override
  public int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device) {
    return run(
        () -> {
          sim.device(index);
          device.setValue(ptr(GPU + index));
        });
  }

  @Override
  public int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device) {
    return run(
        () ->
            device.setValue(
                ptr(
                    GPU
                        + sim.deviceByUuid(uuid)
                            .orElseThrow(() -> new GpuBackendException.NotFound(uuid, null))
                            .index())));
  }

  @Override
  public int nvmlDeviceGetName(Pointer device, byte[] name, int length) {
    return run(() -> chars(name, sim.device(gpu(device)).name()));
  }

  @Override
  public int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length) {
    return run(
        () -> {
          long v = Pointer.nativeValue(device);
          chars(uuid, v >= MIG ? mig(device).uuid() : sim.device(gpu(device)).uuid());
        });
  }

  @Override
  public int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minor) {
    return run(() -> minor.setValue(sim.device(gpu(device)).minor()));
  }

  @Override
  public int nvmlDeviceGetIndex(Pointer device, IntByReference index) {
    return run(() -> index.setValue(gpu(device)));
  }

  @Override
  public int nvmlDeviceGetPciInfo_v3(Pointer device, Memory pci) {
    return run(
        () -> {
          GpuDevice d = sim.device(gpu(device));
          pci.setInt(Field.PCI_DEVICE_ID.offset, d.pciDeviceId());
          pci.setInt(Field.PCI_SUBSYSTEM_ID.offset, d.pciSubsystemId());
          pci.setString(Field.PCI_BUS_ID.offset, d.pciBusId(), "US-ASCII");
        });
  }

  @Override
  public int nvmlDeviceGetCudaComputeCapability(
      Pointer device, IntByReference major, IntByReference minor) {
    return run(
        () -> {
          GpuDevice d = sim.device(gpu(device));
          major.setValue(d.computeMajor());
          minor.setValue(d.computeMinor());
        });
  }

  @Override
  public int nvmlDeviceGetMemoryInfo(Pointer device, Memory memory) {
    return run(
        () -> {
          Telemetry t = sim.telemetry(gpu(device));
          memory.setLong(Field.MEMORY_TOTAL.offset, sim.device(gpu(device)).memoryTotalBytes());
          memory.setLong(Field.MEMORY_FREE.offset, t.memoryFreeBytes());
          memory.setLong(Field.MEMORY_USED.offset, t.memoryUsedBytes());
        });
  }

  @Override
  public int nvmlDeviceGetMemoryInfo_v2(Pointer device, Memory memory) {
    return run(
        () -> {
          if (memory.getInt(Field.MEMORY_V2_VERSION.offset) != NvmlStructs.MEMORY_V2_VERSION) {
            throw new GpuBackendException.ArgumentVersionMismatch("version", null);
          }
          Telemetry t = sim.telemetry(gpu(device));
          memory.setLong(Field.MEMORY_V2_RESERVED.offset, t.memoryReservedBytes());
          memory.setLong(Field.MEMORY_V2_FREE.offset, t.memoryFreeBytes());
          memory.setLong(Field.MEMORY_V2_USED.offset, t.memoryUsedBytes());
        });
  }

  @Override
  public int nvmlDeviceGetUtilizationRates(Pointer device, Memory utilization) {
    return run(
        () -> {
          Telemetry t = sim.telemetry(gpu(device));
          utilization.setInt(Field.UTIL_GPU.offset, (int) t.gpuUtilizationPercent());
          utilization.setInt(Field.UTIL_MEMORY.offset, (int) t.memoryUtilizationPercent());
        });
  }

  @Override
  public int nvmlDeviceGetEncoderUtilization(
      Pointer device, IntByReference utilization, IntByReference samplingPeriodUs) {
    return telemetry(device, Telemetry::encoderUtilizationPercent, utilization);
  }

  @Override
  public int nvmlDeviceGetDecoderUtilization(
      Pointer device, IntByReference utilization, IntByReference samplingPeriodUs) {
    return telemetry(device, Telemetry::decoderUtilizationPercent, utilization);
  }

  @Override
  public int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp) {
    return telemetry(device, Telemetry::temperatureCelsius, temp);
  }

  @Override
  public int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power) {
    return telemetry(device, Telemetry::powerMilliwatts, power);
  }

  @Override
  public int nvmlDeviceGetTotalEnergyConsumption(Pointer device, LongByReference energy) {
    return run(() -> energy.setValue(sim.telemetry(gpu(device)).energyMillijoules()));
  }

  @Override
  public int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock) {
    return telemetry(device, type == 1 ? Telemetry::smClockMhz : Telemetry::memoryClockMhz, clock);
  }

  @Override
  public int nvmlDeviceGetTotalEccErrors(
      Pointer device, int errorType, int counterType, LongByReference eccCounts) {
    return run(
        () -> {
          Telemetry t = sim.telemetry(gpu(device));
          long v =
              counterType == 0
                  ? (errorType == 0 ? t.eccCorrectedVolatile() : t.eccUncorrectedVolatile())
                  : (errorType == 0 ? t.eccCorrectedAggregate() : t.eccUncorrectedAggregate());
          if (v == Telemetry.UNSUPPORTED) {
            throw new GpuBackendException.NotSupported("ecc", null);
          }
          eccCounts.setValue(v);
        });
  }

  @Override
  public int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value) {
    return telemetry(device, Telemetry::pcieReplays, value);
  }

  @Override
  public int nvmlDeviceGetCurrentClocksThrottleReasons(Pointer device, LongByReference reasons) {
    return run(() -> reasons.setValue(sim.clockEventReasons(gpu(device))));
  }

  @Override
  public int nvmlDeviceGetRemappedRows(
      Pointer device,
      IntByReference corrRows,
      IntByReference uncRows,
      IntByReference isPending,
      IntByReference failureOccurred) {
    return run(
        () -> {
          Telemetry t = sim.telemetry(gpu(device));
          if (t.remappedRowsCorrectable() == Telemetry.UNSUPPORTED) {
            throw new GpuBackendException.NotSupported("remap", null);
          }
          corrRows.setValue((int) t.remappedRowsCorrectable());
          uncRows.setValue((int) t.remappedRowsUncorrectable());
          isPending.setValue((int) t.remappingPending());
          failureOccurred.setValue((int) t.remappingFailed());
        });
  }

  @Override
  public int nvmlDeviceGetMigMode(Pointer device, IntByReference current, IntByReference pending) {
    return run(
        () -> {
          MigMode m = sim.migMode(gpu(device));
          current.setValue(m.current() ? 1 : 0);
          pending.setValue(m.pending() ? 1 : 0);
        });
  }

  @Override
  public int nvmlDeviceSetMigMode(Pointer device, int mode, IntByReference activationStatus) {
    return run(
        () -> {
          sim.setMigMode(gpu(device), mode == 1);
          activationStatus.setValue(0);
        });
  }

  @Override
  public int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count) {
    return run(() -> count.setValue(7));
  }

  @Override
  public int nvmlDeviceGetMigDeviceHandleByIndex(
      Pointer device, int index, PointerByReference migDevice) {
    return run(
        () -> {
          List<MigDevice> all = sim.migDevices(gpu(device));
          if (index >= all.size()) {
            throw new GpuBackendException.NotFound("no MIG device " + index, null);
          }
          migDevice.setValue(ptr(MIG + gpu(device) * 0x1000L + index));
        });
  }

  @Override
  public int nvmlDeviceIsMigDeviceHandle(Pointer device, IntByReference isMigDevice) {
    return run(() -> isMigDevice.setValue(Pointer.nativeValue(device) >= MIG ? 1 : 0));
  }

  @Override
  public int nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
      Pointer migDevice, PointerByReference device) {
    return run(() -> device.setValue(ptr(GPU + mig(migDevice).parentIndex())));
  }

  @Override
  public int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id) {
    return run(() -> id.setValue(mig(device).gpuInstanceId()));
  }

  @Override
  public int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id) {
    return run(() -> id.setValue(mig(device).computeInstanceId()));
  }

  @Override
  public int nvmlDeviceGetAttributes_v2(Pointer device, Memory a) {
    return run(
        () -> {
          if (Pointer.nativeValue(device) < MIG) {
            a.setInt(Field.ATTR_SMS.offset, sim.device(gpu(device)).multiprocessorCount());
            return;
          }
          var m = mig(device).attributes();
          a.setInt(Field.ATTR_SMS.offset, m.multiprocessorCount());
          a.setInt(Field.ATTR_CE.offset, m.sharedCopyEngineCount());
          a.setInt(Field.ATTR_DEC.offset, m.sharedDecoderCount());
          a.setInt(Field.ATTR_ENC.offset, m.sharedEncoderCount());
          a.setInt(Field.ATTR_JPEG.offset, m.sharedJpegCount());
          a.setInt(Field.ATTR_OFA.offset, m.sharedOfaCount());
          a.setInt(Field.ATTR_GI_SLICES.offset, m.gpuInstanceSliceCount());
          a.setInt(Field.ATTR_CI_SLICES.offset, m.computeInstanceSliceCount());
          a.setLong(Field.ATTR_MEMORY_MB.offset, m.memorySizeMb());
        });
  }

  @Override
  public int nvmlDeviceGetGpuInstanceProfileInfo(Pointer device, int profile, Memory info) {
    return run(
        () -> {
          GpuInstanceProfile p =
              sim.gpuInstanceProfiles(gpu(device)).stream()
                  .filter(x -> x.index() == profile)
                  .findFirst()
                  .orElseThrow(() -> new GpuBackendException.NotSupported("profile", null));
          info.setInt(Field.GIP_ID.offset, p.id());
          info.setInt(Field.GIP_P2P.offset, p.p2pSupported() ? 1 : 0);
          info.setInt(Field.GIP_SLICES.offset, p.sliceCount());
          info.setInt(Field.GIP_INSTANCES.offset, p.instanceCount());
          info.setInt(Field.GIP_SMS.offset, p.multiprocessorCount());
          info.setInt(Field.GIP_CE.offset, p.copyEngineCount());
          info.setInt(Field.GIP_DEC.offset, p.decoderCount());
          info.setInt(Field.GIP_ENC.offset, p.encoderCount());
          info.setInt(Field.GIP_JPEG.offset, p.jpegCount());
          info.setInt(Field.GIP_OFA.offset, p.ofaCount());
          info.setLong(Field.GIP_MEMORY_MB.offset, p.memorySizeMb());
        });
  }

  @Override
  public int nvmlDeviceGetGpuInstancePossiblePlacements_v2(
      Pointer device, int profileId, Memory placements, IntByReference count) {
    return run(
        () -> {
          List<Placement> all = sim.gpuInstancePossiblePlacements(gpu(device), profileId);
          if (all.size() > count.getValue()) {
            throw new GpuBackendException.InsufficientSize("placements", null);
          }
          for (int i = 0; i < all.size(); i++) {
            long base = (long) i * NvmlStructs.Struct.GI_PLACEMENT.size;
            placements.setInt(base + Field.PLACEMENT_START.offset, all.get(i).start());
            placements.setInt(base + Field.PLACEMENT_SIZE.offset, all.get(i).size());
          }
          count.setValue(all.size());
        });
  }

  @Override
  public int nvmlDeviceGetGpuInstanceRemainingCapacity(
      Pointer device, int profileId, IntByReference count) {
    return run(() -> count.setValue(sim.gpuInstanceRemainingCapacity(gpu(device), profileId)));
  }

  @Override
  public int nvmlDeviceCreateGpuInstance(
      Pointer device, int profileId, PointerByReference gpuInstance) {
    return run(
        () -> {
          GpuInstance gi = sim.createGpuInstance(gpu(device), profileId);
          gpuInstance.setValue(giHandle(gpu(device), gi.id()));
        });
  }

  @Override
  public int nvmlDeviceCreateGpuInstanceWithPlacement(
      Pointer device, int profileId, Memory placement, PointerByReference gpuInstance) {
    return run(
        () -> {
          GpuInstance gi =
              sim.createGpuInstance(gpu(device), profileId, NvmlStructs.placement(placement, 0));
          gpuInstance.setValue(giHandle(gpu(device), gi.id()));
        });
  }

  @Override
  public int nvmlDeviceGetGpuInstances(
      Pointer device, int profileId, Memory gpuInstances, IntByReference count) {
    return run(
        () -> {
          List<GpuInstance> all =
              sim.gpuInstances(gpu(device)).stream()
                  .filter(g -> g.profileId() == profileId)
                  .toList();
          for (int i = 0; i < all.size(); i++) {
            gpuInstances.setPointer((long) i * Long.BYTES, giHandle(gpu(device), all.get(i).id()));
          }
          count.setValue(all.size());
        });
  }

  @Override
  public int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gi) {
    return run(
        () -> {
          if (sim.gpuInstances(gpu(device)).stream().noneMatch(g -> g.id() == id)) {
            throw new GpuBackendException.NotFound("gi " + id, null);
          }
          gi.setValue(giHandle(gpu(device), id));
        });
  }

  private GpuInstance giOf(Pointer p) {
    int[] g = gi(p);
    return sim.gpuInstances(g[0]).stream()
        .filter(x -> x.id() == g[1])
        .findFirst()
        .orElseThrow(() -> new GpuBackendException.NotFound("gi", null));
  }

  @Override
  public int nvmlGpuInstanceGetInfo(Pointer gpuInstance, Memory info) {
    return run(
        () -> {
          GpuInstance g = giOf(gpuInstance);
          info.setPointer(0, ptr(GPU + g.gpuIndex()));
          info.setInt(Field.GI_ID.offset, g.id());
          info.setInt(Field.GI_PROFILE_ID.offset, g.profileId());
          info.setInt(
              Field.GI_PLACEMENT.offset + Field.PLACEMENT_START.offset, g.placement().start());
          info.setInt(
              Field.GI_PLACEMENT.offset + Field.PLACEMENT_SIZE.offset, g.placement().size());
        });
  }

  @Override
  public int nvmlGpuInstanceDestroy(Pointer gpuInstance) {
    return run(() -> sim.destroyGpuInstance(gi(gpuInstance)[0], gi(gpuInstance)[1]));
  }

  @Override
  public int nvmlGpuInstanceGetComputeInstanceProfileInfo(
      Pointer gpuInstance, int profile, int engProfile, Memory info) {
    return run(
        () -> {
          int[] g = gi(gpuInstance);
          ComputeInstanceProfile p =
              sim.computeInstanceProfiles(g[0], g[1]).stream()
                  .filter(x -> x.index() == profile)
                  .findFirst()
                  .orElseThrow(() -> new GpuBackendException.NotSupported("ci profile", null));
          info.setInt(Field.CIP_ID.offset, p.id());
          info.setInt(Field.CIP_SLICES.offset, p.sliceCount());
          info.setInt(Field.CIP_INSTANCES.offset, p.instanceCount());
          info.setInt(Field.CIP_SMS.offset, p.multiprocessorCount());
          info.setInt(Field.CIP_CE.offset, p.sharedCopyEngineCount());
          info.setInt(Field.CIP_DEC.offset, p.sharedDecoderCount());
          info.setInt(Field.CIP_ENC.offset, p.sharedEncoderCount());
          info.setInt(Field.CIP_JPEG.offset, p.sharedJpegCount());
          info.setInt(Field.CIP_OFA.offset, p.sharedOfaCount());
        });
  }

  @Override
  public int nvmlGpuInstanceCreateComputeInstance(
      Pointer gpuInstance, int profileId, PointerByReference computeInstance) {
    return run(
        () -> {
          int[] g = gi(gpuInstance);
          ComputeInstance c = sim.createComputeInstance(g[0], g[1], profileId);
          computeInstance.setValue(ciHandle(g[0], g[1], c.id()));
        });
  }

  @Override
  public int nvmlGpuInstanceGetComputeInstances(
      Pointer gpuInstance, int profileId, Memory computeInstances, IntByReference count) {
    return run(
        () -> {
          int[] g = gi(gpuInstance);
          List<ComputeInstance> all =
              sim.computeInstances(g[0], g[1]).stream()
                  .filter(c -> c.profileId() == profileId)
                  .toList();
          for (int i = 0; i < all.size(); i++) {
            computeInstances.setPointer(
                (long) i * Long.BYTES, ciHandle(g[0], g[1], all.get(i).id()));
          }
          count.setValue(all.size());
        });
  }

  @Override
  public int nvmlGpuInstanceGetComputeInstanceById(
      Pointer gpuInstance, int id, PointerByReference computeInstance) {
    return run(
        () -> {
          int[] g = gi(gpuInstance);
          if (sim.computeInstances(g[0], g[1]).stream().noneMatch(c -> c.id() == id)) {
            throw new GpuBackendException.NotFound("ci " + id, null);
          }
          computeInstance.setValue(ciHandle(g[0], g[1], id));
        });
  }

  @Override
  public int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, Memory info) {
    return run(
        () -> {
          int[] c = ci(computeInstance);
          ComputeInstance x =
              sim.computeInstances(c[0], c[1]).stream()
                  .filter(y -> y.id() == c[2])
                  .findFirst()
                  .orElseThrow(() -> new GpuBackendException.NotFound("ci", null));
          info.setPointer(0, ptr(GPU + c[0]));
          info.setPointer(8, giHandle(c[0], c[1]));
          info.setInt(Field.CI_ID.offset, x.id());
          info.setInt(Field.CI_PROFILE_ID.offset, x.profileId());
        });
  }

  @Override
  public int nvmlComputeInstanceDestroy(Pointer computeInstance) {
    int[] c = ci(computeInstance);
    return run(() -> sim.destroyComputeInstance(c[0], c[1], c[2]));
  }

  @Override
  public int nvmlEventSetCreate(PointerByReference set) {
    return run(() -> set.setValue(ptr(SET + nextSet++)));
  }

  @Override
  public int nvmlEventSetFree(Pointer set) {
    return run(
        () -> {
          GpuEventSubscription s = sets.remove(Pointer.nativeValue(set));
          if (s != null) {
            s.close();
          }
        });
  }

  @Override
  public int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes) {
    return run(
        () ->
            eventTypes.setValue(
                sim.supportedEvents(gpu(device)).stream()
                    .mapToLong(GpuEventType::mask)
                    .reduce(0, (a, b) -> a | b)));
  }

  @Override
  public int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set) {
    return run(
        () ->
            sets.computeIfAbsent(
                Pointer.nativeValue(set), k -> sim.subscribe(EnumSet.allOf(GpuEventType.class))));
  }

  @Override
  public int nvmlEventSetWait_v2(Pointer set, Memory data, int timeoutms) {
    return run(
        () -> {
          try {
            Optional<GpuEvent> e =
                sets.get(Pointer.nativeValue(set)).poll(Duration.ofMillis(timeoutms));
            if (e.isEmpty()) {
              throw new GpuBackendException.Timeout("timeout", null);
            }
            data.setPointer(Field.EVENT_DEVICE.offset, ptr(GPU + e.get().gpuIndex()));
            data.setLong(Field.EVENT_TYPE.offset, e.get().type().mask());
            data.setLong(Field.EVENT_DATA.offset, e.get().data());
            data.setInt(Field.EVENT_GI_ID.offset, e.get().gpuInstanceId());
            data.setInt(Field.EVENT_CI_ID.offset, e.get().computeInstanceId());
          } catch (InterruptedException ex) {
            throw new GpuBackendException.Unknown("interrupted", ex);
          }
        });
  }

  @Override
  public int nvmlDeviceGetTopologyCommonAncestor(
      Pointer device1, Pointer device2, IntByReference pathInfo) {
    return run(() -> pathInfo.setValue(sim.link(gpu(device1), gpu(device2)).pcie().nvmlValue()));
  }

  private int links(int gpu) {
    int n = sim.devices().size();
    return n < 2 ? 0 : sim.link(gpu, (gpu + 1) % n).nvLinks();
  }

  @Override
  public int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive) {
    return run(
        () -> {
          if (link >= links(gpu(device))) {
            throw new GpuBackendException.NotSupported("no link " + link, null);
          }
          isActive.setValue(1);
        });
  }

  @Override
  public int nvmlDeviceGetNvLinkRemotePciInfo_v2(Pointer device, int link, Memory pci) {
    return run(() -> pci.setString(Field.PCI_BUS_ID.offset, "00000000:F0:00.0", "US-ASCII"));
  }

  @Override
  public int nvmlDeviceGetNvLinkRemoteDeviceType(
      Pointer device, int link, IntByReference nvLinkDeviceType) {
    return run(() -> nvLinkDeviceType.setValue(2)); // NVSwitch, as on DGX/HGX boards
  }

  @Override
  public int nvmlDeviceGetGpuFabricInfo(Pointer device, Memory info) {
    return run(
        () -> {
          Optional<GpuFabric> fabric = sim.fabric(gpu(device));
          if (fabric.isEmpty()) {
            throw new GpuBackendException.NotSupported("no fabric", null);
          }
          if (fabricReturn != 0) {
            throw GpuBackendException.of(GpuError.ofCode(fabricReturn), "fabric", null);
          }
          UUID cluster = UUID.fromString(fabric.get().clusterUuid());
          ByteBuffer uuid = ByteBuffer.allocate(NvmlStructs.GPU_FABRIC_UUID_LEN);
          if (!fabricZeroUuid) {
            uuid.putLong(cluster.getMostSignificantBits())
                .putLong(cluster.getLeastSignificantBits());
          }
          info.write(Field.FABRIC_CLUSTER_UUID.offset, uuid.array(), 0, uuid.capacity());
          info.setInt(Field.FABRIC_STATUS.offset, fabricStatus);
          info.setInt(Field.FABRIC_CLIQUE_ID.offset, (int) fabric.get().cliqueId());
          info.setByte(Field.FABRIC_STATE.offset, (byte) fabricState);
        });
  }
}

package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuError;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.GpuLink;
import io.gpuoperator.node.gpu.MigAttributes;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.TopologyLevel;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * {@link GpuBackend} on the real driver through NVML ({@code libnvidia-ml.so.1}, JNA). Every
 * non-success return code becomes the {@link GpuBackendException} subclass of that code, with
 * NVML's own {@code nvmlErrorString} text. GPU reset is not in NVML's API; like mig-manager it runs
 * {@code nvidia-smi -r}, the driver's own (see {@link NvidiaSmi}).
 */
public final class NvmlBackend implements GpuBackend {
  /** The library's SONAME; found through the dynamic loader's search path. */
  public static final String LIBRARY = "libnvidia-ml.so.1";

  private static final int NVML_SUCCESS = 0;
  private static final int NVML_ERROR_TIMEOUT = 10;
  private static final int NVML_ERROR_NOT_SUPPORTED = 3;
  private static final int NVML_ERROR_NOT_FOUND = 6;
  private static final int NVML_ERROR_INVALID_ARGUMENT = 2;
  private static final int NVML_NVLINK_MAX_LINKS = 18;
  private static final int NVML_NVLINK_DEVICE_TYPE_SWITCH = 2;
  private static final int BUFFER = 96;

  /** How long a GPU reset may take before it counts as failed. */
  private static final Duration RESET_TIMEOUT = Duration.ofSeconds(120);

  private final NvmlLibrary nvml;
  private final Path sysfsRoot;
  private final NvidiaSmi nvidiaSmi;
  private final List<GpuDevice> devices = new ArrayList<>();
  private final List<Pointer> handles = new ArrayList<>();
  private volatile boolean closed;

  private NvmlBackend(NvmlLibrary nvml, Path sysfsRoot, NvidiaSmi nvidiaSmi) {
    this.nvml = nvml;
    this.sysfsRoot = sysfsRoot;
    this.nvidiaSmi = nvidiaSmi;
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
    NvmlBackend b = new NvmlBackend(lib, sysfsRoot, nvidiaSmi);
    int rc = lib.nvmlInit_v2();
    if (rc != NVML_SUCCESS) {
      String text = lib.nvmlErrorString(rc);
      GpuError error = GpuError.ofCode(rc);
      String hint =
          error == GpuError.DRIVER_NOT_LOADED
              ? " (NVIDIA driver not loaded: no NVIDIA kernel module is running on this machine)"
              : "";
      throw GpuBackendException.of(error, "nvmlInit_v2: " + text + hint);
    }
    try {
      b.enumerate();
    } catch (RuntimeException e) {
      lib.nvmlShutdown();
      throw e;
    }
    return b;
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

  private void enumerate() {
    IntByReference count = new IntByReference();
    check(nvml.nvmlDeviceGetCount_v2(count), "nvmlDeviceGetCount_v2");
    for (int i = 0; i < count.getValue(); i++) {
      PointerByReference ref = new PointerByReference();
      check(nvml.nvmlDeviceGetHandleByIndex_v2(i, ref), "nvmlDeviceGetHandleByIndex_v2(" + i + ")");
      Pointer h = ref.getValue();
      handles.add(h);
      devices.add(describe(i, h));
    }
  }

  private GpuDevice describe(int index, Pointer h) {
    String name = string((buf, n) -> nvml.nvmlDeviceGetName(h, buf, n), "nvmlDeviceGetName");
    String uuid = string((buf, n) -> nvml.nvmlDeviceGetUUID(h, buf, n), "nvmlDeviceGetUUID");
    Memory pci = Struct.PCI_INFO.allocate();
    check(nvml.nvmlDeviceGetPciInfo_v3(h, pci), "nvmlDeviceGetPciInfo_v3");
    String busId = NvmlStructs.pciBusId(pci);
    IntByReference minor = new IntByReference(-1);
    int rc = nvml.nvmlDeviceGetMinorNumber(h, minor);
    if (rc != NVML_ERROR_NOT_SUPPORTED) {
      check(rc, "nvmlDeviceGetMinorNumber");
    }
    IntByReference major = new IntByReference();
    IntByReference min = new IntByReference();
    check(
        nvml.nvmlDeviceGetCudaComputeCapability(h, major, min),
        "nvmlDeviceGetCudaComputeCapability");
    Memory mem = Struct.MEMORY.allocate();
    check(nvml.nvmlDeviceGetMemoryInfo(h, mem), "nvmlDeviceGetMemoryInfo");
    IntByReference cur = new IntByReference();
    IntByReference pend = new IntByReference();
    boolean migCapable = nvml.nvmlDeviceGetMigMode(h, cur, pend) == NVML_SUCCESS;
    GpuDevice partial =
        new GpuDevice(
            index,
            uuid,
            name,
            busId,
            Field.PCI_DEVICE_ID.getInt(pci),
            Field.PCI_SUBSYSTEM_ID.getInt(pci),
            -1,
            minor.getValue(),
            Field.MEMORY_TOTAL.getLong(mem),
            major.getValue(),
            min.getValue(),
            -1,
            migCapable,
            0);
    String dir = partial.sysfsBusId();
    Memory attrs = Struct.ATTRIBUTES.allocate();
    int sms =
        nvml.nvmlDeviceGetAttributes_v2(h, attrs) == NVML_SUCCESS
            ? NvmlStructs.attributes(attrs).multiprocessorCount()
            : 0;
    return new GpuDevice(
        index,
        uuid,
        name,
        busId,
        partial.pciDeviceId(),
        partial.pciSubsystemId(),
        (int) sysfsHex(dir, "class"),
        minor.getValue(),
        Field.MEMORY_TOTAL.getLong(mem),
        major.getValue(),
        min.getValue(),
        (int) sysfsLong(dir, "numa_node"),
        migCapable,
        sms);
  }

  private long sysfsLong(String busDir, String file) {
    try {
      String s =
          Files.readString(sysfsRoot.resolve("bus/pci/devices").resolve(busDir).resolve(file));
      long v = Long.parseLong(s.trim());
      return v < 0 ? -1 : v;
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  private long sysfsHex(String busDir, String file) {
    try {
      String s =
          Files.readString(sysfsRoot.resolve("bus/pci/devices").resolve(busDir).resolve(file));
      return Long.decode(s.trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  @FunctionalInterface
  private interface StringCall {
    int call(byte[] buf, int length);
  }

  private String string(StringCall c, String what) {
    byte[] buf = new byte[BUFFER];
    check(c.call(buf, buf.length), what);
    return NvmlStructs.cString(buf);
  }

  /** Throws the typed exception of a return code; {@code what} says which call failed. */
  void check(int rc, String what) {
    if (rc != NVML_SUCCESS) {
      throw exception(nvml, rc, what);
    }
  }

  /** The typed exception of an NVML return code, with NVML's own text for it. */
  public static GpuBackendException exception(NvmlLibrary nvml, int rc, String what) {
    return GpuBackendException.of(GpuError.ofCode(rc), what + ": " + nvml.nvmlErrorString(rc));
  }

  private Pointer handle(int gpu) {
    if (closed) {
      throw new GpuBackendException.Uninitialized("NVML was shut down", null);
    }
    if (gpu < 0 || gpu >= handles.size()) {
      throw new GpuBackendException.InvalidArgument(
          "no GPU with index " + gpu + " (" + handles.size() + " GPUs)", null);
    }
    return handles.get(gpu);
  }

  @Override
  public String kind() {
    return "nvml";
  }

  @Override
  public String driverVersion() {
    byte[] buf = new byte[80];
    check(nvml.nvmlSystemGetDriverVersion(buf, buf.length), "nvmlSystemGetDriverVersion");
    return NvmlStructs.cString(buf);
  }

  @Override
  public int cudaDriverVersion() {
    IntByReference v = new IntByReference();
    check(nvml.nvmlSystemGetCudaDriverVersion_v2(v), "nvmlSystemGetCudaDriverVersion_v2");
    return v.getValue();
  }

  @Override
  public List<GpuDevice> devices() {
    return List.copyOf(devices);
  }

  @Override
  public MigMode migMode(int gpu) {
    IntByReference cur = new IntByReference();
    IntByReference pend = new IntByReference();
    check(nvml.nvmlDeviceGetMigMode(handle(gpu), cur, pend), "nvmlDeviceGetMigMode(" + gpu + ")");
    return new MigMode(cur.getValue() == 1, pend.getValue() == 1);
  }

  @Override
  public MigMode setMigMode(int gpu, boolean enabled) {
    IntByReference activation = new IntByReference();
    check(
        nvml.nvmlDeviceSetMigMode(handle(gpu), enabled ? 1 : 0, activation),
        "nvmlDeviceSetMigMode(" + gpu + ")");
    if (activation.getValue() != NVML_SUCCESS) {
      check(activation.getValue(), "MIG mode activation on GPU " + gpu);
    }
    return migMode(gpu);
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
  public List<MigDevice> migDevices(int gpu) {
    Pointer h = handle(gpu);
    GpuDevice parent = devices.get(gpu);
    if (!parent.migCapable() || !migMode(gpu).current()) {
      return List.of();
    }
    Map<Integer, Integer> indexById = new HashMap<>();
    for (GpuInstanceProfile p : gpuInstanceProfiles(gpu)) {
      indexById.put(p.id(), p.index());
    }
    IntByReference max = new IntByReference();
    check(nvml.nvmlDeviceGetMaxMigDeviceCount(h, max), "nvmlDeviceGetMaxMigDeviceCount");
    List<MigDevice> out = new ArrayList<>();
    for (int i = 0; i < max.getValue(); i++) {
      PointerByReference ref = new PointerByReference();
      int rc = nvml.nvmlDeviceGetMigDeviceHandleByIndex(h, i, ref);
      if (rc == NVML_ERROR_NOT_FOUND) {
        continue;
      }
      check(rc, "nvmlDeviceGetMigDeviceHandleByIndex(" + gpu + ", " + i + ")");
      Pointer mig = ref.getValue();
      String uuid = string((buf, n) -> nvml.nvmlDeviceGetUUID(mig, buf, n), "nvmlDeviceGetUUID");
      IntByReference gi = new IntByReference();
      IntByReference ci = new IntByReference();
      check(nvml.nvmlDeviceGetGpuInstanceId(mig, gi), "nvmlDeviceGetGpuInstanceId");
      check(nvml.nvmlDeviceGetComputeInstanceId(mig, ci), "nvmlDeviceGetComputeInstanceId");
      Memory attrs = Struct.ATTRIBUTES.allocate();
      check(nvml.nvmlDeviceGetAttributes_v2(mig, attrs), "nvmlDeviceGetAttributes_v2");
      MigAttributes a = NvmlStructs.attributes(attrs);
      Pointer giHandle = gpuInstanceHandle(h, gi.getValue());
      Memory giInfo = Struct.GI_INFO.allocate();
      check(nvml.nvmlGpuInstanceGetInfo(giHandle, giInfo), "nvmlGpuInstanceGetInfo");
      int giProfileId = Field.GI_PROFILE_ID.getInt(giInfo);
      Memory ciInfo = Struct.CI_INFO.allocate();
      PointerByReference ciRef = new PointerByReference();
      check(
          nvml.nvmlGpuInstanceGetComputeInstanceById(giHandle, ci.getValue(), ciRef),
          "nvmlGpuInstanceGetComputeInstanceById");
      check(
          nvml.nvmlComputeInstanceGetInfo_v2(ciRef.getValue(), ciInfo),
          "nvmlComputeInstanceGetInfo_v2");
      int giIndex = indexById.getOrDefault(giProfileId, -1);
      MigProfile profile =
          new MigProfile(
              a.computeInstanceSliceCount(),
              a.gpuInstanceSliceCount(),
              MigProfile.memoryGb(a.memorySizeMb(), parent.memoryTotalBytes()),
              a.computeInstanceSliceCount() == a.gpuInstanceSliceCount()
                  ? NvmlStructs.profileSuffix(giIndex)
                  : "");
      out.add(
          new MigDevice(
              gpu,
              parent.uuid(),
              i,
              uuid,
              gi.getValue(),
              ci.getValue(),
              giProfileId,
              Field.CI_PROFILE_ID.getInt(ciInfo),
              profile,
              a,
              NvmlStructs.placement(giInfo, Field.GI_PLACEMENT.offset)));
    }
    return out;
  }

  private Pointer gpuInstanceHandle(Pointer device, int giId) {
    PointerByReference ref = new PointerByReference();
    check(
        nvml.nvmlDeviceGetGpuInstanceById(device, giId, ref),
        "nvmlDeviceGetGpuInstanceById(" + giId + ")");
    return ref.getValue();
  }

  @Override
  public List<GpuInstanceProfile> gpuInstanceProfiles(int gpu) {
    Pointer h = handle(gpu);
    List<GpuInstanceProfile> out = new ArrayList<>();
    for (int idx = 0; idx < NvmlStructs.GI_PROFILE_INDEX_COUNT; idx++) {
      Memory info = Struct.GI_PROFILE_INFO.allocate();
      int rc = nvml.nvmlDeviceGetGpuInstanceProfileInfo(h, idx, info);
      if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT) {
        continue;
      }
      check(rc, "nvmlDeviceGetGpuInstanceProfileInfo(" + gpu + ", " + idx + ")");
      out.add(NvmlStructs.giProfile(info, idx, devices.get(gpu).memoryTotalBytes()));
    }
    return out;
  }

  @Override
  public List<Placement> gpuInstancePossiblePlacements(int gpu, int profileId) {
    Memory buf = Struct.GI_PLACEMENT.allocate(32);
    IntByReference count = new IntByReference(32);
    check(
        nvml.nvmlDeviceGetGpuInstancePossiblePlacements_v2(handle(gpu), profileId, buf, count),
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    List<Placement> out = new ArrayList<>();
    for (int i = 0; i < count.getValue(); i++) {
      out.add(NvmlStructs.placement(buf, (long) i * Struct.GI_PLACEMENT.size));
    }
    return out;
  }

  @Override
  public int gpuInstanceRemainingCapacity(int gpu, int profileId) {
    IntByReference count = new IntByReference();
    check(
        nvml.nvmlDeviceGetGpuInstanceRemainingCapacity(handle(gpu), profileId, count),
        "nvmlDeviceGetGpuInstanceRemainingCapacity");
    return count.getValue();
  }

  @Override
  public List<GpuInstance> gpuInstances(int gpu) {
    Pointer h = handle(gpu);
    List<GpuInstance> out = new ArrayList<>();
    for (GpuInstanceProfile p : gpuInstanceProfiles(gpu)) {
      Memory buf = NvmlStructs.zeroed(Native.POINTER_SIZE * 32);
      IntByReference count = new IntByReference(32);
      check(nvml.nvmlDeviceGetGpuInstances(h, p.id(), buf, count), "nvmlDeviceGetGpuInstances");
      for (int i = 0; i < count.getValue(); i++) {
        out.add(gpuInstanceInfo(gpu, buf.getPointer((long) i * Native.POINTER_SIZE)));
      }
    }
    out.sort(Comparator.comparingInt(GpuInstance::id));
    return out;
  }

  private GpuInstance gpuInstanceInfo(int gpu, Pointer gi) {
    Memory info = Struct.GI_INFO.allocate();
    check(nvml.nvmlGpuInstanceGetInfo(gi, info), "nvmlGpuInstanceGetInfo");
    return new GpuInstance(
        gpu,
        Field.GI_ID.getInt(info),
        Field.GI_PROFILE_ID.getInt(info),
        NvmlStructs.placement(info, Field.GI_PLACEMENT.offset));
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, int profileId) {
    PointerByReference gi = new PointerByReference();
    check(
        nvml.nvmlDeviceCreateGpuInstance(handle(gpu), profileId, gi),
        "nvmlDeviceCreateGpuInstance");
    return gpuInstanceInfo(gpu, gi.getValue());
  }

  @Override
  public GpuInstance createGpuInstance(int gpu, int profileId, Placement placement) {
    Memory p = NvmlStructs.placement(placement);
    PointerByReference gi = new PointerByReference();
    check(
        nvml.nvmlDeviceCreateGpuInstanceWithPlacement(handle(gpu), profileId, p, gi),
        "nvmlDeviceCreateGpuInstanceWithPlacement");
    return gpuInstanceInfo(gpu, gi.getValue());
  }

  @Override
  public void destroyGpuInstance(int gpu, int gpuInstanceId) {
    check(
        nvml.nvmlGpuInstanceDestroy(gpuInstanceHandle(handle(gpu), gpuInstanceId)),
        "nvmlGpuInstanceDestroy(" + gpuInstanceId + ")");
  }

  @Override
  public List<ComputeInstanceProfile> computeInstanceProfiles(int gpu, int gpuInstanceId) {
    Pointer gi = gpuInstanceHandle(handle(gpu), gpuInstanceId);
    List<ComputeInstanceProfile> out = new ArrayList<>();
    for (int idx = 0; idx < NvmlStructs.CI_PROFILE_INDEX_COUNT; idx++) {
      Memory m = Struct.CI_PROFILE_INFO.allocate();
      int rc = nvml.nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, idx, 0, m);
      if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT) {
        continue;
      }
      check(rc, "nvmlGpuInstanceGetComputeInstanceProfileInfo");
      out.add(NvmlStructs.ciProfile(m, idx));
    }
    return out;
  }

  @Override
  public List<ComputeInstance> computeInstances(int gpu, int gpuInstanceId) {
    Pointer gi = gpuInstanceHandle(handle(gpu), gpuInstanceId);
    List<ComputeInstance> out = new ArrayList<>();
    for (ComputeInstanceProfile p : computeInstanceProfiles(gpu, gpuInstanceId)) {
      Memory buf = NvmlStructs.zeroed(Native.POINTER_SIZE * 16);
      IntByReference count = new IntByReference(16);
      check(
          nvml.nvmlGpuInstanceGetComputeInstances(gi, p.id(), buf, count),
          "nvmlGpuInstanceGetComputeInstances");
      for (int i = 0; i < count.getValue(); i++) {
        out.add(
            computeInstanceInfo(
                gpu, gpuInstanceId, buf.getPointer((long) i * Native.POINTER_SIZE)));
      }
    }
    out.sort(Comparator.comparingInt(ComputeInstance::id));
    return out;
  }

  private ComputeInstance computeInstanceInfo(int gpu, int giId, Pointer ci) {
    Memory info = Struct.CI_INFO.allocate();
    check(nvml.nvmlComputeInstanceGetInfo_v2(ci, info), "nvmlComputeInstanceGetInfo_v2");
    return new ComputeInstance(
        gpu, giId, Field.CI_ID.getInt(info), Field.CI_PROFILE_ID.getInt(info));
  }

  @Override
  public ComputeInstance createComputeInstance(int gpu, int gpuInstanceId, int profileId) {
    Pointer gi = gpuInstanceHandle(handle(gpu), gpuInstanceId);
    PointerByReference ci = new PointerByReference();
    check(
        nvml.nvmlGpuInstanceCreateComputeInstance(gi, profileId, ci),
        "nvmlGpuInstanceCreateComputeInstance");
    return computeInstanceInfo(gpu, gpuInstanceId, ci.getValue());
  }

  @Override
  public void destroyComputeInstance(int gpu, int gpuInstanceId, int computeInstanceId) {
    Pointer gi = gpuInstanceHandle(handle(gpu), gpuInstanceId);
    PointerByReference ci = new PointerByReference();
    check(
        nvml.nvmlGpuInstanceGetComputeInstanceById(gi, computeInstanceId, ci),
        "nvmlGpuInstanceGetComputeInstanceById(" + computeInstanceId + ")");
    check(nvml.nvmlComputeInstanceDestroy(ci.getValue()), "nvmlComputeInstanceDestroy");
  }

  /** A reading that may be unsupported: NOT_SUPPORTED becomes {@link Telemetry#UNSUPPORTED}. */
  private long optional(IntSupplier call, IntSupplier value, String what) {
    int rc = call.getAsInt();
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    check(rc, what);
    return Integer.toUnsignedLong(value.getAsInt());
  }

  private long optionalLong(IntSupplier call, LongByReference ref, String what) {
    int rc = call.getAsInt();
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    check(rc, what);
    return ref.getValue();
  }

  @Override
  public Telemetry telemetry(int gpu) {
    Pointer h = handle(gpu);
    Memory util = Struct.UTILIZATION.allocate();
    long gpuUtil =
        optional(
            () -> nvml.nvmlDeviceGetUtilizationRates(h, util),
            () -> Field.UTIL_GPU.getInt(util),
            "nvmlDeviceGetUtilizationRates");
    long memUtil =
        gpuUtil == Telemetry.UNSUPPORTED ? Telemetry.UNSUPPORTED : Field.UTIL_MEMORY.getInt(util);
    IntByReference v = new IntByReference();
    IntByReference period = new IntByReference();
    long enc =
        optional(
            () -> nvml.nvmlDeviceGetEncoderUtilization(h, v, period),
            v::getValue,
            "nvmlDeviceGetEncoderUtilization");
    long dec =
        optional(
            () -> nvml.nvmlDeviceGetDecoderUtilization(h, v, period),
            v::getValue,
            "nvmlDeviceGetDecoderUtilization");
    Memory mem = Struct.MEMORY_V2.allocate();
    mem.setInt(Field.MEMORY_V2_VERSION.offset, NvmlStructs.MEMORY_V2_VERSION);
    long used;
    long free;
    long reserved;
    int rc = nvml.nvmlDeviceGetMemoryInfo_v2(h, mem);
    if (rc == NVML_SUCCESS) {
      reserved = Field.MEMORY_V2_RESERVED.getLong(mem);
      free = Field.MEMORY_V2_FREE.getLong(mem);
      used = Field.MEMORY_V2_USED.getLong(mem);
    } else {
      Memory m1 = Struct.MEMORY.allocate();
      check(nvml.nvmlDeviceGetMemoryInfo(h, m1), "nvmlDeviceGetMemoryInfo");
      reserved = Telemetry.UNSUPPORTED;
      free = Field.MEMORY_FREE.getLong(m1);
      used = Field.MEMORY_USED.getLong(m1);
    }
    long temp =
        optional(
            () -> nvml.nvmlDeviceGetTemperature(h, 0, v), v::getValue, "nvmlDeviceGetTemperature");
    long memoryTemp = memoryTemperature(h);
    long power =
        optional(() -> nvml.nvmlDeviceGetPowerUsage(h, v), v::getValue, "nvmlDeviceGetPowerUsage");
    LongByReference l = new LongByReference();
    long energy =
        optionalLong(
            () -> nvml.nvmlDeviceGetTotalEnergyConsumption(h, l),
            l,
            "nvmlDeviceGetTotalEnergyConsumption");
    long sm =
        optional(
            () -> nvml.nvmlDeviceGetClockInfo(h, 1, v), v::getValue, "nvmlDeviceGetClockInfo(SM)");
    long memClock =
        optional(
            () -> nvml.nvmlDeviceGetClockInfo(h, 2, v), v::getValue, "nvmlDeviceGetClockInfo(MEM)");
    long[] ecc = new long[4];
    for (int i = 0; i < 4; i++) {
      int errorType = i % 2;
      int counterType = i / 2;
      ecc[i] =
          optionalLong(
              () -> nvml.nvmlDeviceGetTotalEccErrors(h, errorType, counterType, l),
              l,
              "nvmlDeviceGetTotalEccErrors");
    }
    long replays =
        optional(
            () -> nvml.nvmlDeviceGetPcieReplayCounter(h, v),
            v::getValue,
            "nvmlDeviceGetPcieReplayCounter");
    IntByReference corr = new IntByReference();
    IntByReference unc = new IntByReference();
    IntByReference pending = new IntByReference();
    IntByReference failed = new IntByReference();
    long remap =
        optional(
            () -> nvml.nvmlDeviceGetRemappedRows(h, corr, unc, pending, failed),
            corr::getValue,
            "nvmlDeviceGetRemappedRows");
    boolean remapOk = remap != Telemetry.UNSUPPORTED;
    return new Telemetry(
        gpuUtil,
        memUtil,
        enc,
        dec,
        used,
        free,
        reserved,
        temp,
        memoryTemp,
        power,
        energy,
        sm,
        memClock,
        ecc[0],
        ecc[1],
        ecc[2],
        ecc[3],
        replays,
        remapOk ? corr.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? unc.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? pending.getValue() : Telemetry.UNSUPPORTED,
        remapOk ? failed.getValue() : Telemetry.UNSUPPORTED);
  }

  @Override
  public Telemetry migTelemetry(int gpu, int migIndex) {
    Pointer h = handle(gpu);
    PointerByReference ref = new PointerByReference();
    check(
        nvml.nvmlDeviceGetMigDeviceHandleByIndex(h, migIndex, ref),
        "nvmlDeviceGetMigDeviceHandleByIndex(" + gpu + ", " + migIndex + ")");
    Pointer mig = ref.getValue();
    Memory mem = Struct.MEMORY_V2.allocate();
    mem.setInt(Field.MEMORY_V2_VERSION.offset, NvmlStructs.MEMORY_V2_VERSION);
    if (nvml.nvmlDeviceGetMemoryInfo_v2(mig, mem) == NVML_SUCCESS) {
      return Telemetry.memoryOnly(
          Field.MEMORY_V2_USED.getLong(mem),
          Field.MEMORY_V2_FREE.getLong(mem),
          Field.MEMORY_V2_RESERVED.getLong(mem));
    }
    Memory m1 = Struct.MEMORY.allocate();
    check(nvml.nvmlDeviceGetMemoryInfo(mig, m1), "nvmlDeviceGetMemoryInfo(MIG " + migIndex + ")");
    return Telemetry.memoryOnly(
        Field.MEMORY_USED.getLong(m1), Field.MEMORY_FREE.getLong(m1), Telemetry.UNSUPPORTED);
  }

  /**
   * The HBM temperature through {@code nvmlDeviceGetFieldValues}: the 535 driver exports no {@code
   * nvmlDeviceGetTemperatureV}, and GDDR boards answer the field with NOT_SUPPORTED.
   */
  private long memoryTemperature(Pointer h) {
    Memory fv = Struct.FIELD_VALUE.allocate();
    fv.setInt(Field.FV_FIELD_ID.offset, NvmlStructs.FI_DEV_MEMORY_TEMP);
    int rc = nvml.nvmlDeviceGetFieldValues(h, 1, fv);
    if (rc == NVML_SUCCESS) {
      rc = Field.FV_RETURN.getInt(fv);
    }
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
      return Telemetry.UNSUPPORTED;
    }
    check(rc, "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)");
    return Field.FV_VALUE_TYPE.getInt(fv) == NvmlStructs.VALUE_TYPE_DOUBLE
        ? Math.round(fv.getDouble(Field.FV_VALUE.offset))
        : Integer.toUnsignedLong(Field.FV_VALUE.getInt(fv));
  }

  @Override
  public GpuLink link(int gpuA, int gpuB) {
    Pointer a = handle(gpuA);
    Pointer b = handle(gpuB);
    if (gpuA == gpuB) {
      return new GpuLink(gpuA, gpuB, TopologyLevel.INTERNAL, 0);
    }
    IntByReference level = new IntByReference();
    check(
        nvml.nvmlDeviceGetTopologyCommonAncestor(a, b, level),
        "nvmlDeviceGetTopologyCommonAncestor");
    String busB = devices.get(gpuB).pciBusId();
    int direct = 0;
    int switchA = 0;
    for (int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
      Integer remote = nvlinkRemote(a, link, busB);
      if (remote == null) {
        break;
      }
      if (remote == 1) {
        direct++;
      } else if (remote == 2) {
        switchA++;
      }
    }
    int switchB = 0;
    if (switchA > 0) {
      for (int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        Integer remote = nvlinkRemote(b, link, "");
        if (remote == null) {
          break;
        }
        if (remote == 2) {
          switchB++;
        }
      }
    }
    // Through NVSwitch every pair is fully connected: count the links both sides have.
    return new GpuLink(
        gpuA, gpuB, TopologyLevel.ofNvml(level.getValue()), direct + Math.min(switchA, switchB));
  }

  /** null: no more links (or no NVLink); 0 inactive/other; 1 to the peer; 2 to an NVSwitch. */
  private Integer nvlinkRemote(Pointer dev, int link, String peerBusId) {
    IntByReference active = new IntByReference();
    int rc = nvml.nvmlDeviceGetNvLinkState(dev, link, active);
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT) {
      return null;
    }
    check(rc, "nvmlDeviceGetNvLinkState");
    if (active.getValue() == 0) {
      return 0;
    }
    IntByReference type = new IntByReference(-1);
    if (nvml.nvmlDeviceGetNvLinkRemoteDeviceType(dev, link, type) == NVML_SUCCESS
        && type.getValue() == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
      return 2;
    }
    Memory pci = Struct.PCI_INFO.allocate();
    check(
        nvml.nvmlDeviceGetNvLinkRemotePciInfo_v2(dev, link, pci),
        "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    return NvmlStructs.pciBusId(pci).equalsIgnoreCase(peerBusId) ? 1 : 0;
  }

  @Override
  public Set<GpuEventType> supportedEvents(int gpu) {
    LongByReference mask = new LongByReference();
    int rc = nvml.nvmlDeviceGetSupportedEventTypes(handle(gpu), mask);
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
      return EnumSet.noneOf(GpuEventType.class);
    }
    check(rc, "nvmlDeviceGetSupportedEventTypes");
    Set<GpuEventType> out = EnumSet.noneOf(GpuEventType.class);
    for (GpuEventType t : GpuEventType.values()) {
      if ((mask.getValue() & t.mask()) != 0) {
        out.add(t);
      }
    }
    return out;
  }

  @Override
  public GpuEventSubscription subscribe(Set<GpuEventType> types) {
    PointerByReference set = new PointerByReference();
    check(nvml.nvmlEventSetCreate(set), "nvmlEventSetCreate");
    long wanted = types.stream().mapToLong(GpuEventType::mask).reduce(0, (x, y) -> x | y);
    List<Integer> registered = new ArrayList<>();
    List<Integer> unsupported = new ArrayList<>();
    Map<Long, Integer> byHandle = new HashMap<>();
    for (int i = 0; i < handles.size(); i++) {
      Pointer h = handle(i);
      byHandle.put(Pointer.nativeValue(h), i);
      long mask = 0;
      for (GpuEventType t : supportedEvents(i)) {
        mask |= t.mask();
      }
      mask &= wanted;
      if (mask == 0) {
        unsupported.add(i);
        continue;
      }
      int rc = nvml.nvmlDeviceRegisterEvents(h, mask, set.getValue());
      if (rc == NVML_ERROR_NOT_SUPPORTED) {
        unsupported.add(i);
        continue;
      }
      check(rc, "nvmlDeviceRegisterEvents(" + i + ")");
      registered.add(i);
    }
    return new NvmlEventSubscription(set.getValue(), registered, unsupported, byHandle);
  }

  private final class NvmlEventSubscription implements GpuEventSubscription {
    private final Pointer set;
    private final List<Integer> registered;
    private final List<Integer> unsupported;
    private final Map<Long, Integer> byHandle;
    private boolean freed;

    NvmlEventSubscription(
        Pointer set,
        List<Integer> registered,
        List<Integer> unsupported,
        Map<Long, Integer> byHandle) {
      this.set = set;
      this.registered = List.copyOf(registered);
      this.unsupported = List.copyOf(unsupported);
      this.byHandle = byHandle;
    }

    @Override
    public synchronized Optional<GpuEvent> poll(Duration timeout) {
      if (freed) {
        throw new GpuBackendException.Uninitialized("the event subscription is closed", null);
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        Memory data = Struct.EVENT_DATA.allocate();
        long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
        int rc = nvml.nvmlEventSetWait_v2(set, data, (int) Math.min(Integer.MAX_VALUE, left));
        if (rc == NVML_ERROR_TIMEOUT) {
          return Optional.empty();
        }
        check(rc, "nvmlEventSetWait_v2");
        GpuEventType type = GpuEventType.ofMask(Field.EVENT_TYPE.getLong(data));
        if (type == null) {
          // A kind this build does not know (newer driver): not ours to report; keep waiting.
          if (System.nanoTime() >= deadline) {
            return Optional.empty();
          }
          continue;
        }
        int gpu = byHandle.getOrDefault(Pointer.nativeValue(NvmlStructs.eventDevice(data)), -1);
        return Optional.of(
            new GpuEvent(
                type,
                gpu,
                gpu >= 0 ? devices.get(gpu).uuid() : "",
                Field.EVENT_DATA.getLong(data),
                Field.EVENT_GI_ID.getInt(data),
                Field.EVENT_CI_ID.getInt(data)));
      }
    }

    @Override
    public List<Integer> registeredGpus() {
      return registered;
    }

    @Override
    public List<Integer> unsupportedGpus() {
      return unsupported;
    }

    @Override
    public synchronized void close() {
      if (!freed) {
        freed = true;
        nvml.nvmlEventSetFree(set);
      }
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      nvml.nvmlShutdown();
    }
  }
}

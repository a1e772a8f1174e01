package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPUs NVML saw when it was opened: their handles and their identity ({@link GpuDevice}: name,
 * UUID, PCI ids, memory, compute capability), with the PCI class and NUMA node NVML does not report
 * read from sysfs. Enumerated once: NVML renumbers only when GPUs are removed or rediscovered,
 * which this backend never does.
 */
final class NvmlGpus {
  private final NvmlSession session;
  private final NvmlLibrary nvml;
  private final Path sysfsRoot;
  private final List<GpuDevice> devices = new ArrayList<>();
  private final List<Pointer> handles = new ArrayList<>();

  private NvmlGpus(NvmlSession session, Path sysfsRoot) {
    this.session = session;
    this.nvml = session.nvml();
    this.sysfsRoot = sysfsRoot;
  }

  /**
   * Enumerates every GPU of an initialised session.
   *
   * @param sysfsRoot where {@code bus/pci/devices} is read ({@code /sys} on a host)
   */
  static NvmlGpus enumerate(NvmlSession session, Path sysfsRoot) {
    NvmlGpus gpus = new NvmlGpus(session, sysfsRoot);
    IntByReference count = new IntByReference();
    session.check(gpus.nvml.nvmlDeviceGetCount_v2(count), "nvmlDeviceGetCount_v2");
    for (int i = 0; i < count.getValue(); i++) {
      PointerByReference ref = new PointerByReference();
      session.check(
          gpus.nvml.nvmlDeviceGetHandleByIndex_v2(i, ref),
          "nvmlDeviceGetHandleByIndex_v2(" + i + ")");
      Pointer h = ref.getValue();
      gpus.handles.add(h);
      gpus.devices.add(gpus.describe(i, h));
    }
    return gpus;
  }

  List<GpuDevice> devices() {
    return List.copyOf(devices);
  }

  GpuDevice device(int gpu) {
    return devices.get(gpu);
  }

  int count() {
    return handles.size();
  }

  /** The handle of a GPU; fails typed on a bad index or once the session is shut down. */
  Pointer handle(int gpu) {
    session.requireOpen();
    if (gpu < 0 || gpu >= handles.size()) {
      throw new GpuBackendException.InvalidArgument(
          "no GPU with index " + gpu + " (" + handles.size() + " GPUs)", null);
    }
    return handles.get(gpu);
  }

  private GpuDevice describe(int index, Pointer h) {
    String name =
        session.string((buf, n) -> nvml.nvmlDeviceGetName(h, buf, n), "nvmlDeviceGetName");
    String uuid =
        session.string((buf, n) -> nvml.nvmlDeviceGetUUID(h, buf, n), "nvmlDeviceGetUUID");
    Memory pci = Struct.PCI_INFO.allocate();
    session.check(nvml.nvmlDeviceGetPciInfo_v3(h, pci), "nvmlDeviceGetPciInfo_v3");
    String busId = NvmlStructs.pciBusId(pci);
    IntByReference minor = new IntByReference(-1);
    int rc = nvml.nvmlDeviceGetMinorNumber(h, minor);
    if (rc != NvmlSession.ERROR_NOT_SUPPORTED) {
      session.check(rc, "nvmlDeviceGetMinorNumber");
    }
    IntByReference major = new IntByReference();
    IntByReference min = new IntByReference();
    session.check(
        nvml.nvmlDeviceGetCudaComputeCapability(h, major, min),
        "nvmlDeviceGetCudaComputeCapability");
    Memory mem = Struct.MEMORY.allocate();
    session.check(nvml.nvmlDeviceGetMemoryInfo(h, mem), "nvmlDeviceGetMemoryInfo");
    IntByReference cur = new IntByReference();
    IntByReference pend = new IntByReference();
    boolean migCapable = nvml.nvmlDeviceGetMigMode(h, cur, pend) == NvmlSession.SUCCESS;
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
        nvml.nvmlDeviceGetAttributes_v2(h, attrs) == NvmlSession.SUCCESS
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
}

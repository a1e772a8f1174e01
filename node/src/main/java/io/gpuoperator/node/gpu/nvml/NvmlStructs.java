package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigAttributes;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.Placement;
import java.nio.charset.StandardCharsets;

/** Sizes, offsets and decoders of the NVML structs the binding passes as raw memory (nvml.h). */
final class NvmlStructs {
  /**
   * nvmlPciInfo_t: busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32].
   */
  static final int PCI_INFO_SIZE = 68;

  static final int PCI_DEVICE_ID_OFFSET = 28;
  static final int PCI_SUBSYSTEM_ID_OFFSET = 32;
  static final int PCI_BUS_ID_OFFSET = 36;

  /** nvmlMemory_t: total, free, used (unsigned long long). */
  static final int MEMORY_SIZE = 24;

  /** nvmlMemory_v2_t: version, (pad), total, reserved, free, used. */
  static final int MEMORY_V2_SIZE = 40;

  static final int MEMORY_V2_VERSION = MEMORY_V2_SIZE | (2 << 24);

  /** nvmlUtilization_t: gpu, memory. */
  static final int UTILIZATION_SIZE = 8;

  /** nvmlDeviceAttributes_t: eight unsigned ints, then memorySizeMB. */
  static final int ATTRIBUTES_SIZE = 40;

  /** nvmlGpuInstanceProfileInfo_t: ten unsigned ints, then memorySizeMB. */
  static final int GI_PROFILE_INFO_SIZE = 48;

  /** nvmlGpuInstancePlacement_t: start, size. */
  static final int PLACEMENT_SIZE = 8;

  /** nvmlGpuInstanceInfo_t: device, id, profileId, placement. */
  static final int GI_INFO_SIZE = 24;

  /** nvmlComputeInstanceProfileInfo_t: nine unsigned ints. */
  static final int CI_PROFILE_INFO_SIZE = 36;

  /** nvmlComputeInstanceInfo_t: device, gpuInstance, id, profileId, placement. */
  static final int CI_INFO_SIZE = 32;

  /** nvmlEventData_t: device, eventType, eventData, gpuInstanceId, computeInstanceId. */
  static final int EVENT_DATA_SIZE = 32;

  /** NVML_GPU_INSTANCE_PROFILE_* indices this build asks for (1_SLICE .. 2_SLICE_ALL_ME). */
  static final int GI_PROFILE_INDEX_COUNT = 0x11;

  /** NVML_COMPUTE_INSTANCE_PROFILE_* indices this build asks for (1_SLICE .. 7_SLICE_NVL). */
  static final int CI_PROFILE_INDEX_COUNT = 0x9;

  private NvmlStructs() {}

  static Memory zeroed(int size) {
    Memory m = new Memory(size);
    m.clear();
    return m;
  }

  static String cString(byte[] buf) {
    int n = 0;
    while (n < buf.length && buf[n] != 0) {
      n++;
    }
    return new String(buf, 0, n, StandardCharsets.US_ASCII);
  }

  static String pciBusId(Memory pci) {
    return cString(pci.getByteArray(PCI_BUS_ID_OFFSET, 32));
  }

  /** The go-nvlib attribute suffix of a GPU-instance profile index. */
  static String profileSuffix(int index) {
    return switch (index) {
      case 0x7, 0x8 -> "+me";
      case 0xA, 0xB, 0xC -> "+gfx";
      case 0xD, 0xE -> "-me";
      case 0xF, 0x10 -> "+me.all";
      default -> "";
    };
  }

  static GpuInstanceProfile giProfile(Memory m, int index, long totalMemoryBytes) {
    int slices = m.getInt(8);
    long memMb = m.getLong(40);
    MigProfile p =
        new MigProfile(
            slices, slices, MigProfile.memoryGb(memMb, totalMemoryBytes), profileSuffix(index));
    return new GpuInstanceProfile(
        index,
        m.getInt(0),
        p,
        slices,
        m.getInt(12),
        m.getInt(16),
        m.getInt(20),
        m.getInt(24),
        m.getInt(28),
        m.getInt(32),
        m.getInt(36),
        memMb,
        m.getInt(4) != 0);
  }

  static MigAttributes attributes(Memory m) {
    return new MigAttributes(
        m.getInt(0),
        m.getInt(4),
        m.getInt(8),
        m.getInt(12),
        m.getInt(16),
        m.getInt(20),
        m.getInt(24),
        m.getInt(28),
        m.getLong(32));
  }

  static Placement placement(Memory m, long offset) {
    return new Placement(m.getInt(offset), m.getInt(offset + 4));
  }
}

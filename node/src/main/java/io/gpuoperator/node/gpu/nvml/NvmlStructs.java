package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigAttributes;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.Placement;
import java.nio.charset.StandardCharsets;

/**
 * The NVML structs the binding passes as raw memory: their sizes ({@link Struct}) and every field
 * offset the code reads or writes ({@link Field}), as laid out by {@code nvml.h} on 64-bit Linux.
 * NvmlStructsLayoutTest checks each one against NVIDIA's header.
 */
final class NvmlStructs {

  /** Struct sizes in bytes. */
  enum Struct {
    PCI_INFO("nvmlPciInfo_t", 68),
    MEMORY("nvmlMemory_t", 24),
    MEMORY_V2("nvmlMemory_v2_t", 40),
    UTILIZATION("nvmlUtilization_t", 8),
    ATTRIBUTES("nvmlDeviceAttributes_t", 40),
    GI_PROFILE_INFO("nvmlGpuInstanceProfileInfo_t", 48),
    GI_PLACEMENT("nvmlGpuInstancePlacement_t", 8),
    GI_INFO("nvmlGpuInstanceInfo_t", 24),
    CI_PROFILE_INFO("nvmlComputeInstanceProfileInfo_t", 36),
    CI_INFO("nvmlComputeInstanceInfo_t", 32),
    EVENT_DATA("nvmlEventData_t", 32),
    FIELD_VALUE("nvmlFieldValue_t", 40),
    GPM_SUPPORT("nvmlGpmSupport_t", 8),
    GPM_METRIC("nvmlGpmMetric_t", 40),
    /** Sized for NVML_GPM_METRIC_MAX (98) metrics; we ask for fewer, set in numMetrics. */
    GPM_METRICS_GET("nvmlGpmMetricsGet_t", 3944),
    /**
     * The unversioned fabric info that {@code nvmlDeviceGetGpuFabricInfo} fills (the call NVIDIA's
     * DRA driver and GFD make; R535 exports no {@code ...InfoV}).
     */
    GPU_FABRIC_INFO("nvmlGpuFabricInfo_t", 28);

    final String cName;
    final int size;

    Struct(String cName, int size) {
      this.cName = cName;
      this.size = size;
    }

    /** Zeroed memory for one struct. */
    Memory allocate() {
      return zeroed(size);
    }

    /** Zeroed memory for an array of structs. */
    Memory allocate(int count) {
      return zeroed(size * count);
    }
  }

  /** Field offsets in bytes. */
  enum Field {
    PCI_DEVICE_ID(Struct.PCI_INFO, "pciDeviceId", 28),
    PCI_SUBSYSTEM_ID(Struct.PCI_INFO, "pciSubSystemId", 32),
    PCI_BUS_ID(Struct.PCI_INFO, "busId", 36),
    MEMORY_TOTAL(Struct.MEMORY, "total", 0),
    MEMORY_FREE(Struct.MEMORY, "free", 8),
    MEMORY_USED(Struct.MEMORY, "used", 16),
    MEMORY_V2_VERSION(Struct.MEMORY_V2, "version", 0),
    MEMORY_V2_RESERVED(Struct.MEMORY_V2, "reserved", 16),
    MEMORY_V2_FREE(Struct.MEMORY_V2, "free", 24),
    MEMORY_V2_USED(Struct.MEMORY_V2, "used", 32),
    UTIL_GPU(Struct.UTILIZATION, "gpu", 0),
    UTIL_MEMORY(Struct.UTILIZATION, "memory", 4),
    ATTR_SMS(Struct.ATTRIBUTES, "multiprocessorCount", 0),
    ATTR_CE(Struct.ATTRIBUTES, "sharedCopyEngineCount", 4),
    ATTR_DEC(Struct.ATTRIBUTES, "sharedDecoderCount", 8),
    ATTR_ENC(Struct.ATTRIBUTES, "sharedEncoderCount", 12),
    ATTR_JPEG(Struct.ATTRIBUTES, "sharedJpegCount", 16),
    ATTR_OFA(Struct.ATTRIBUTES, "sharedOfaCount", 20),
    ATTR_GI_SLICES(Struct.ATTRIBUTES, "gpuInstanceSliceCount", 24),
    ATTR_CI_SLICES(Struct.ATTRIBUTES, "computeInstanceSliceCount", 28),
    ATTR_MEMORY_MB(Struct.ATTRIBUTES, "memorySizeMB", 32),
    GIP_ID(Struct.GI_PROFILE_INFO, "id", 0),
    GIP_P2P(Struct.GI_PROFILE_INFO, "isP2pSupported", 4),
    GIP_SLICES(Struct.GI_PROFILE_INFO, "sliceCount", 8),
    GIP_INSTANCES(Struct.GI_PROFILE_INFO, "instanceCount", 12),
    GIP_SMS(Struct.GI_PROFILE_INFO, "multiprocessorCount", 16),
    GIP_CE(Struct.GI_PROFILE_INFO, "copyEngineCount", 20),
    GIP_DEC(Struct.GI_PROFILE_INFO, "decoderCount", 24),
    GIP_ENC(Struct.GI_PROFILE_INFO, "encoderCount", 28),
    GIP_JPEG(Struct.GI_PROFILE_INFO, "jpegCount", 32),
    GIP_OFA(Struct.GI_PROFILE_INFO, "ofaCount", 36),
    GIP_MEMORY_MB(Struct.GI_PROFILE_INFO, "memorySizeMB", 40),
    PLACEMENT_START(Struct.GI_PLACEMENT, "start", 0),
    PLACEMENT_SIZE(Struct.GI_PLACEMENT, "size", 4),
    GI_ID(Struct.GI_INFO, "id", 8),
    GI_PROFILE_ID(Struct.GI_INFO, "profileId", 12),
    GI_PLACEMENT(Struct.GI_INFO, "placement", 16),
    CIP_ID(Struct.CI_PROFILE_INFO, "id", 0),
    CIP_SLICES(Struct.CI_PROFILE_INFO, "sliceCount", 4),
    CIP_INSTANCES(Struct.CI_PROFILE_INFO, "instanceCount", 8),
    CIP_SMS(Struct.CI_PROFILE_INFO, "multiprocessorCount", 12),
    CIP_CE(Struct.CI_PROFILE_INFO, "sharedCopyEngineCount", 16),
    CIP_DEC(Struct.CI_PROFILE_INFO, "sharedDecoderCount", 20),
    CIP_ENC(Struct.CI_PROFILE_INFO, "sharedEncoderCount", 24),
    CIP_JPEG(Struct.CI_PROFILE_INFO, "sharedJpegCount", 28),
    CIP_OFA(Struct.CI_PROFILE_INFO, "sharedOfaCount", 32),
    CI_ID(Struct.CI_INFO, "id", 16),
    CI_PROFILE_ID(Struct.CI_INFO, "profileId", 20),
    EVENT_DEVICE(Struct.EVENT_DATA, "device", 0),
    EVENT_TYPE(Struct.EVENT_DATA, "eventType", 8),
    EVENT_DATA(Struct.EVENT_DATA, "eventData", 16),
    EVENT_GI_ID(Struct.EVENT_DATA, "gpuInstanceId", 24),
    EVENT_CI_ID(Struct.EVENT_DATA, "computeInstanceId", 28),
    FV_FIELD_ID(Struct.FIELD_VALUE, "fieldId", 0),
    FV_SCOPE_ID(Struct.FIELD_VALUE, "scopeId", 4),
    FV_TIMESTAMP(Struct.FIELD_VALUE, "timestamp", 8),
    FV_VALUE_TYPE(Struct.FIELD_VALUE, "valueType", 24),
    FV_RETURN(Struct.FIELD_VALUE, "nvmlReturn", 28),
    FV_VALUE(Struct.FIELD_VALUE, "value", 32),
    GPM_SUPPORT_VERSION(Struct.GPM_SUPPORT, "version", 0),
    GPM_SUPPORT_IS_SUPPORTED(Struct.GPM_SUPPORT, "isSupportedDevice", 4),
    GPM_METRIC_ID(Struct.GPM_METRIC, "metricId", 0),
    GPM_METRIC_RETURN(Struct.GPM_METRIC, "nvmlReturn", 4),
    GPM_METRIC_VALUE(Struct.GPM_METRIC, "value", 8),
    GPM_GET_VERSION(Struct.GPM_METRICS_GET, "version", 0),
    GPM_GET_NUM_METRICS(Struct.GPM_METRICS_GET, "numMetrics", 4),
    GPM_GET_SAMPLE1(Struct.GPM_METRICS_GET, "sample1", 8),
    GPM_GET_SAMPLE2(Struct.GPM_METRICS_GET, "sample2", 16),
    GPM_GET_METRICS(Struct.GPM_METRICS_GET, "metrics", 24),
    FABRIC_CLUSTER_UUID(Struct.GPU_FABRIC_INFO, "clusterUuid", 0),
    FABRIC_STATUS(Struct.GPU_FABRIC_INFO, "status", 16),
    FABRIC_CLIQUE_ID(Struct.GPU_FABRIC_INFO, "cliqueId", 20),
    FABRIC_STATE(Struct.GPU_FABRIC_INFO, "state", 24);

    final Struct struct;
    final String cName;
    final int offset;

    Field(Struct struct, String cName, int offset) {
      this.struct = struct;
      this.cName = cName;
      this.offset = offset;
    }

    int getInt(Memory m) {
      return m.getInt(offset);
    }

    long getLong(Memory m) {
      return m.getLong(offset);
    }
  }

  /** {@code nvmlMemory_v2}: the struct size with version 2 in the top byte. */
  static final int MEMORY_V2_VERSION = Struct.MEMORY_V2.size | (2 << 24);

  /** {@code NVML_FI_DEV_MEMORY_TEMP}: the HBM temperature field. */
  static final int FI_DEV_MEMORY_TEMP = 82;

  /** {@code nvmlValueType_t}: which member of the {@code nvmlValue_t} union is set. */
  static final int VALUE_TYPE_DOUBLE = 0;

  static final int VALUE_TYPE_UNSIGNED_INT = 1;

  static final int VALUE_TYPE_UNSIGNED_LONG = 2;

  static final int VALUE_TYPE_UNSIGNED_LONG_LONG = 3;

  static final int VALUE_TYPE_SIGNED_LONG_LONG = 4;

  /** {@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX}: KiB of NVLink data sent, per link (scopeId). */
  static final int FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;

  /** {@code NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX}: KiB of NVLink data received, per link. */
  static final int FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;

  /** {@code NVML_NVLINK_MAX_LINKS}: links asked for per GPU. */
  static final int NVLINK_MAX_LINKS = 18;

  /** {@code nvmlPcieUtilCounter_t}: {@code NVML_PCIE_UTIL_TX_BYTES}, {@code ..._RX_BYTES}. */
  static final int PCIE_UTIL_TX_BYTES = 0;

  static final int PCIE_UTIL_RX_BYTES = 1;

  /** {@code NVML_GPM_SUPPORT_VERSION}, {@code NVML_GPM_METRICS_GET_VERSION}. */
  static final int GPM_SUPPORT_VERSION = 1;

  static final int GPM_METRICS_GET_VERSION = 1;

  /** NVML_GPU_INSTANCE_PROFILE_* indices asked for (1_SLICE .. 2_SLICE_ALL_ME, newest driver). */
  static final int GI_PROFILE_INDEX_COUNT = 0x11;

  /** NVML_COMPUTE_INSTANCE_PROFILE_* indices asked for (1_SLICE .. 7_SLICE_NVL). */
  static final int CI_PROFILE_INDEX_COUNT = 0x9;

  /** {@code NVML_GPU_FABRIC_UUID_LEN}: bytes of a fabric's cluster UUID. */
  static final int GPU_FABRIC_UUID_LEN = 16;

  /** {@code NVML_GPU_FABRIC_STATE_*}: where the GPU's registration with the fabric stands. */
  static final int GPU_FABRIC_STATE_NOT_SUPPORTED = 0;

  static final int GPU_FABRIC_STATE_NOT_STARTED = 1;

  static final int GPU_FABRIC_STATE_IN_PROGRESS = 2;

  static final int GPU_FABRIC_STATE_COMPLETED = 3;

  /** NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE. */
  static final int BUS_ID_LENGTH = 32;

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
    return cString(pci.getByteArray(Field.PCI_BUS_ID.offset, BUS_ID_LENGTH));
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
    int slices = Field.GIP_SLICES.getInt(m);
    long memMb = Field.GIP_MEMORY_MB.getLong(m);
    MigProfile p =
        new MigProfile(
            slices, slices, MigProfile.memoryGb(memMb, totalMemoryBytes), profileSuffix(index));
    return new GpuInstanceProfile(
        index,
        Field.GIP_ID.getInt(m),
        p,
        slices,
        Field.GIP_INSTANCES.getInt(m),
        Field.GIP_SMS.getInt(m),
        Field.GIP_CE.getInt(m),
        Field.GIP_DEC.getInt(m),
        Field.GIP_ENC.getInt(m),
        Field.GIP_JPEG.getInt(m),
        Field.GIP_OFA.getInt(m),
        memMb,
        Field.GIP_P2P.getInt(m) != 0);
  }

  static ComputeInstanceProfile ciProfile(Memory m, int index) {
    return new ComputeInstanceProfile(
        index,
        Field.CIP_ID.getInt(m),
        Field.CIP_SLICES.getInt(m),
        Field.CIP_INSTANCES.getInt(m),
        Field.CIP_SMS.getInt(m),
        Field.CIP_CE.getInt(m),
        Field.CIP_DEC.getInt(m),
        Field.CIP_ENC.getInt(m),
        Field.CIP_JPEG.getInt(m),
        Field.CIP_OFA.getInt(m));
  }

  static MigAttributes attributes(Memory m) {
    return new MigAttributes(
        Field.ATTR_SMS.getInt(m),
        Field.ATTR_CE.getInt(m),
        Field.ATTR_DEC.getInt(m),
        Field.ATTR_ENC.getInt(m),
        Field.ATTR_JPEG.getInt(m),
        Field.ATTR_OFA.getInt(m),
        Field.ATTR_GI_SLICES.getInt(m),
        Field.ATTR_CI_SLICES.getInt(m),
        Field.ATTR_MEMORY_MB.getLong(m));
  }

  /** A placement struct starting at an offset (an array element or a nested field). */
  static Placement placement(Memory m, long offset) {
    return new Placement(
        m.getInt(offset + Field.PLACEMENT_START.offset),
        m.getInt(offset + Field.PLACEMENT_SIZE.offset));
  }

  static Memory placement(Placement p) {
    Memory m = Struct.GI_PLACEMENT.allocate();
    m.setInt(Field.PLACEMENT_START.offset, p.start());
    m.setInt(Field.PLACEMENT_SIZE.offset, p.size());
    return m;
  }

  /**
   * The number in an {@code nvmlFieldValue_t} starting at an offset (an array element): the member
   * of the {@code nvmlValue_t} union that its {@code valueType} names, a double rounded.
   */
  static long fieldValue(Memory fv, long at) {
    long value = at + Field.FV_VALUE.offset;
    return switch (fv.getInt(at + Field.FV_VALUE_TYPE.offset)) {
      case VALUE_TYPE_DOUBLE -> Math.round(fv.getDouble(value));
      case VALUE_TYPE_UNSIGNED_INT -> Integer.toUnsignedLong(fv.getInt(value));
      default -> fv.getLong(value);
    };
  }

  static com.sun.jna.Pointer eventDevice(Memory m) {
    return m.getPointer(Field.EVENT_DEVICE.offset);
  }
}

package io.gpuoperator.node.gpu;

import java.util.Locale;

/**
 * One physical GPU as the backend sees it.
 *
 * @param index NVML index (enumeration order)
 * @param uuid {@code GPU-<uuid>}
 * @param name NVML product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param pciBusId NVML's form, e.g. {@code 00000000:18:00.0}
 * @param pciDeviceId {@code (device << 16) | vendor}, e.g. {@code 0x233010DE}
 * @param pciSubsystemId {@code (subsystem device << 16) | subsystem vendor}
 * @param pciClass the PCI class code from sysfs, e.g. {@code 0x030200}; -1 when unknown
 * @param minor the {@code /dev/nvidia<minor>} number
 * @param memoryTotalBytes total framebuffer memory ({@code nvmlDeviceGetMemoryInfo().total})
 * @param computeMajor CUDA compute capability major
 * @param computeMinor CUDA compute capability minor
 * @param numaNode NUMA node of the PCI device, -1 when none
 * @param migCapable whether {@code nvmlDeviceGetMigMode} is supported
 * @param multiprocessorCount streaming multiprocessors of the whole GPU
 */
public record GpuDevice(
    int index,
    String uuid,
    String name,
    String pciBusId,
    int pciDeviceId,
    int pciSubsystemId,
    int pciClass,
    int minor,
    long memoryTotalBytes,
    int computeMajor,
    int computeMinor,
    int numaNode,
    boolean migCapable,
    int multiprocessorCount) {

  /** NVIDIA's PCI vendor id. */
  public static final int NVIDIA_VENDOR_ID = 0x10DE;

  /** Total memory in MiB, as {@code nvidia.com/gpu.memory} reports it. */
  public long memoryTotalMiB() {
    return memoryTotalBytes >> 20;
  }

  /** The PCI device id without the vendor, e.g. {@code 0x2330}. */
  public int pciDevice() {
    return pciDeviceId >>> 16;
  }

  /** The id mig-parted's {@code device-filter} matches: {@code 0x<DEVICE><VENDOR>}, upper case. */
  public String deviceFilterId() {
    return String.format(Locale.ROOT, "0x%08X", pciDeviceId);
  }

  /** The sysfs directory name of this device: lower case, without the leading {@code 0000}. */
  public String sysfsBusId() {
    String id = pciBusId.toLowerCase(Locale.ROOT);
    return id.length() == 16 && id.startsWith("0000") ? id.substring(4) : id;
  }
}

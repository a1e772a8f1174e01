package io.gpuoperator.node.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The PCI devices of a node as sysfs lists them ({@code <root>/bus/pci/devices/<address>/vendor}
 * and {@code class}), read without NVML or a driver: what NFD's PCI source reads, so that GPU nodes
 * are found before any NVIDIA software runs on them.
 */
public final class PciDevices {
  /** PCI base class and subclass of a VGA controller (class code {@code 0x0300xx}). */
  public static final int CLASS_VGA = 0x0300;

  /** PCI base class and subclass of a 3D controller (class code {@code 0x0302xx}). */
  public static final int CLASS_3D = 0x0302;

  /**
   * The drivers that hand a GPU to a VM (the second: Grace Hopper's and Blackwell's), as the
   * sandbox validator and NVIDIA's KubeVirt device plugin accept them.
   */
  public static final List<String> VFIO_DRIVERS = List.of("vfio-pci", "nvgrace_gpu_vfio_pci");

  /** One device: its bus address, vendor id and 24-bit class code. */
  public record Device(String address, int vendor, int classCode) {
    /** Whether this is an NVIDIA display or 3D controller (NFD's pci-0300_10de / pci-0302_10de). */
    public boolean isNvidiaGpu() {
      int cls = classCode >> 8;
      return vendor == GpuDevice.NVIDIA_VENDOR_ID && (cls == CLASS_VGA || cls == CLASS_3D);
    }
  }

  private PciDevices() {}

  /**
   * Every device under {@code sysfsRoot/bus/pci/devices}, sorted by address. A missing folder is an
   * IOException naming it (sysfs not mounted); a device whose files do not parse is skipped, as a
   * device without a vendor is no GPU.
   */
  public static List<Device> scan(Path sysfsRoot) throws IOException {
    Path dir = sysfsRoot.resolve("bus/pci/devices");
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(
          dir.toString(), null, "no PCI devices folder (is /sys mounted in the container?)");
    }
    List<Device> out = new ArrayList<>();
    try (Stream<Path> devices = Files.list(dir)) {
      for (Path d : devices.sorted().toList()) {
        Integer vendor = hex(d.resolve("vendor"));
        Integer cls = hex(d.resolve("class"));
        if (vendor != null && cls != null) {
          out.add(new Device(d.getFileName().toString(), vendor, cls));
        }
      }
    }
    return out;
  }

  /** Whether any NVIDIA GPU is among the devices. */
  public static boolean hasNvidiaGpu(List<Device> devices) {
    return devices.stream().anyMatch(Device::isNvidiaGpu);
  }

  /**
   * The kernel driver bound to the device at {@code address}: the name its {@code driver} link
   * points at, or null when no driver is bound.
   */
  public static String driver(Path sysfsRoot, String address) throws IOException {
    Path link = sysfsRoot.resolve("bus/pci/devices").resolve(address).resolve("driver");
    if (!Files.isSymbolicLink(link)) {
      return null;
    }
    Path target = Files.readSymbolicLink(link).getFileName();
    return target == null ? null : target.toString();
  }

  private static Integer hex(Path file) {
    try {
      String s = Files.readString(file).trim().toLowerCase(Locale.ROOT);
      return Integer.parseInt(s.startsWith("0x") ? s.substring(2) : s, 16);
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }
}

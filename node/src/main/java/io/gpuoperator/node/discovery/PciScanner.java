package io.gpuoperator.node.discovery;

import io.gpuoperator.node.gpu.GpuDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Finds NVIDIA GPUs on the PCI bus from sysfs, without the driver: vendor {@code 0x10de} with class
 * {@code 0x0300xx} (VGA) or {@code 0x0302xx} (3D controller), as NFD's {@code pci-10de.present}.
 * Lets a cluster without NFD still get {@code nvidia.com/gpu.present}.
 */
public final class PciScanner {
  private final Path sysfsRoot;

  /**
   * A PCI function found in sysfs.
   *
   * @param address e.g. {@code 0000:18:00.0}
   * @param vendor vendor id
   * @param device device id
   * @param pciClass 24-bit class code
   */
  public record PciDevice(String address, int vendor, int device, int pciClass) {
    /** True for an NVIDIA display or 3D controller. */
    public boolean nvidiaGpu() {
      int base = pciClass >> 8;
      return vendor == GpuDevice.NVIDIA_VENDOR_ID && (base == 0x0300 || base == 0x0302);
    }
  }

  /** Scans {@code <sysfsRoot>/bus/pci/devices}. */
  public PciScanner(Path sysfsRoot) {
    this.sysfsRoot = sysfsRoot;
  }

  /** Every PCI function with readable vendor, device and class files. */
  public List<PciDevice> devices() throws IOException {
    Path dir = sysfsRoot.resolve("bus/pci/devices");
    List<PciDevice> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      for (Path d : entries.sorted().toList()) {
        Integer vendor = hex(d.resolve("vendor"));
        Integer device = hex(d.resolve("device"));
        Integer cls = hex(d.resolve("class"));
        if (vendor != null && device != null && cls != null) {
          out.add(new PciDevice(d.getFileName().toString(), vendor, device, cls));
        }
      }
    }
    return out;
  }

  /** The NVIDIA GPUs among them. */
  public List<PciDevice> nvidiaGpus() throws IOException {
    return devices().stream().filter(PciDevice::nvidiaGpu).toList();
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

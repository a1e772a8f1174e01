package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.GpuDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The PCIe root complex of a GPU, for the standard {@code resource.kubernetes.io/pcieRoot}
 * attribute (claims use it to keep a GPU and a NIC under one root).
 */
@FunctionalInterface
public interface PcieRoots {

  /** The root ({@code pci0000:17}), or empty when it cannot be told. */
  Optional<String> root(GpuDevice gpu);

  /**
   * As Kubernetes' {@code deviceattribute} package resolves it: {@code
   * <sysfs>/bus/pci/devices/<bdf>} links to {@code <sysfs>/devices/pci<root>/.../<bdf>}.
   */
  static PcieRoots sysfs(Path sysfsRoot) {
    return gpu -> {
      Path link = sysfsRoot.resolve("bus/pci/devices").resolve(gpu.sysfsBusId());
      try {
        Path target = Files.readSymbolicLink(link);
        if (!target.isAbsolute()) {
          target = link.getParent().resolve(target).normalize();
        }
        Path relative = sysfsRoot.toAbsolutePath().normalize().relativize(target.toAbsolutePath());
        if (relative.getNameCount() < 2
            || !relative.getName(0).toString().equals("devices")
            || !relative.getName(1).toString().startsWith("pci")
            || !relative.getFileName().toString().equals(gpu.sysfsBusId())) {
          return Optional.empty();
        }
        return Optional.of(relative.getName(1).toString());
      } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
        return Optional.empty();
      }
    };
  }

  /**
   * For simulated GPUs, which have no sysfs: one root complex per NUMA node, as on the DGX-style
   * boards the simulator models ({@code pci0000:00}, {@code pci0000:80}).
   */
  static PcieRoots simulated() {
    return gpu ->
        Optional.of(String.format(Locale.ROOT, "pci0000:%02x", Math.max(0, gpu.numaNode()) * 0x80));
  }
}

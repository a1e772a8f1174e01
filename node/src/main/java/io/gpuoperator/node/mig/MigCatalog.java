package io.gpuoperator.node.mig;

import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The MIG-capable GPU models this project has tables for (the built-in hardware profiles, the one
 * source of truth for MIG profiles, counts and placements), looked up the ways MIG configurations
 * name GPUs: by mig-parted device-filter id, by a GPU the backend reports, or by the product label
 * feature discovery writes. Several models may share a PCI device id (memory variants); lookups by
 * id return all of them.
 */
public final class MigCatalog {
  private static volatile MigCatalog builtIn;

  private final List<HardwareProfile> models;

  public MigCatalog(List<HardwareProfile> models) {
    this.models = models.stream().filter(HardwareProfile::migCapable).toList();
  }

  /** Every built-in MIG-capable model (loaded once). */
  public static MigCatalog builtIn() {
    MigCatalog c = builtIn;
    if (c == null) {
      c =
          new MigCatalog(
              HardwareProfiles.BUILT_IN.stream().map(HardwareProfiles::builtIn).toList());
      builtIn = c;
    }
    return c;
  }

  /** The models, in table order. */
  public List<HardwareProfile> models() {
    return models;
  }

  /** mig-parted's id of a PCI device: {@code 0x<DEVICE>10DE}, upper-case hex. */
  public static String filterId(int pciDevice) {
    return String.format(Locale.ROOT, "0x%04X%04X", pciDevice, GpuDevice.NVIDIA_VENDOR_ID);
  }

  /** The filter ids of a model: its primary id first, then its variants. */
  public static List<String> filterIds(HardwareProfile hw) {
    return hw.pciDevices().stream().map(MigCatalog::filterId).toList();
  }

  /** Models with this device-filter id ({@code 0x233010DE}); empty when unknown. */
  public List<HardwareProfile> byFilterId(String id) {
    String want = id.toUpperCase(Locale.ROOT).replace("0X", "0x");
    return models.stream().filter(m -> filterIds(m).contains(want)).toList();
  }

  /** The model of a GPU: same device id, the nearest memory size among variants. */
  public Optional<HardwareProfile> forGpu(GpuDevice gpu) {
    return byFilterId(gpu.deviceFilterId()).stream()
        .min(Comparator.comparingLong(m -> Math.abs(m.memoryMiB() - gpu.memoryTotalMiB())));
  }

  /**
   * The model whose product label ({@code nvidia.com/gpu.product}, the NVML name with spaces as
   * dashes, possibly with a {@code -SHARED} or {@code -MIG-...} suffix) names it; {@code memoryMiB}
   * ({@code nvidia.com/gpu.memory}, 0 when unknown) picks among memory variants.
   */
  public Optional<HardwareProfile> byProduct(String product, long memoryMiB) {
    String p = product == null ? "" : product.toUpperCase(Locale.ROOT);
    return models.stream()
        .filter(
            m -> {
              String label = m.name().replace(' ', '-').toUpperCase(Locale.ROOT);
              return p.equals(label) || p.startsWith(label + "-");
            })
        .min(
            Comparator.comparingLong(
                m -> memoryMiB <= 0 ? 0 : Math.abs(m.memoryMiB() - memoryMiB)));
  }

  /** A model by its table name ({@code H100-SXM5-80GB}). */
  public Optional<HardwareProfile> byModel(String model) {
    return models.stream().filter(m -> m.model().equals(model)).findFirst();
  }
}

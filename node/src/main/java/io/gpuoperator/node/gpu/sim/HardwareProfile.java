package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.node.gpu.MigProfile;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One GPU model as the simulator knows it, read from a YAML hardware profile (built-in ones live in
 * {@code io/gpuoperator/node/gpu/profiles/<model>.yaml}).
 *
 * @param model the profile's key, e.g. {@code H100-SXM5-80GB}
 * @param name NVML product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param pciDeviceId PCI device id, hex, e.g. {@code 0x2330}
 * @param pciDeviceIdVariants other device ids of the same GPU (PCIe cards, export variants such as
 *     A800/H800) that share its MIG geometry; mig-parted's {@code device-filter} names them all
 * @param pciSubsystemId PCI subsystem device id, hex
 * @param pciClass PCI class code, hex, e.g. {@code 0x030200}
 * @param memoryMiB total memory NVML reports, MiB
 * @param computeCapability {@code <major>.<minor>}
 * @param multiprocessors SMs
 * @param nvLinks NVLinks per GPU (0 for PCIe-only cards)
 * @param encoders video encoders (0: encoder utilisation is not reported)
 * @param decoders video decoders (0: decoder utilisation is not reported)
 * @param power idle and maximum board power
 * @param clocks maximum SM and memory clocks
 * @param ecc whether ECC counters are reported
 * @param remappedRows whether row remapping is reported (Ampere and newer)
 * @param mig the MIG geometry, absent for GPUs that are not MIG-capable
 * @param pciName the primary device id's name in the PCI ID database ({@code pci.ids}, which
 *     NVIDIA's KubeVirt device plugin names its resources from), e.g. {@code GH100 [H100 SXM5
 *     80GB]}; absent where the database has none
 * @param multiNodeNvlink whether the GPU joins a multi-node NVLink fabric (GB200/GB300 NVL72
 *     trays): the simulated GPU then reports the simulated rack's fabric clique
 */
public record HardwareProfile(
    String model,
    String name,
    String pciDeviceId,
    List<String> pciDeviceIdVariants,
    String pciSubsystemId,
    String pciClass,
    long memoryMiB,
    String computeCapability,
    int multiprocessors,
    int nvLinks,
    int encoders,
    int decoders,
    Power power,
    Clocks clocks,
    boolean ecc,
    boolean remappedRows,
    Mig mig,
    String pciName,
    Boolean multiNodeNvlink) {

  public HardwareProfile {
    multiNodeNvlink = multiNodeNvlink != null && multiNodeNvlink;
    require(model != null && !model.isBlank(), "model: required");
    require(name != null && !name.isBlank(), "name: required");
    hex(pciDeviceId, "pciDeviceId");
    pciDeviceIdVariants =
        pciDeviceIdVariants == null ? List.of() : List.copyOf(pciDeviceIdVariants);
    for (String v : pciDeviceIdVariants) {
      hex(v, "pciDeviceIdVariants");
    }
    hex(pciSubsystemId, "pciSubsystemId");
    hex(pciClass, "pciClass");
    range(memoryMiB, 1, MAX_MEMORY_MIB, "memoryMiB");
    require(
        computeCapability != null && computeCapability.matches("\\d+\\.\\d+"),
        "computeCapability: expected <major>.<minor> like 9.0, got " + computeCapability);
    range(multiprocessors, 1, 1024, "multiprocessors");
    range(nvLinks, 0, 64, "nvLinks");
    range(encoders, 0, 64, "encoders");
    range(decoders, 0, 64, "decoders");
    require(power != null, "power: required");
    require(clocks != null, "clocks: required");
    if (mig != null) {
      long totalBytes = memoryMiB << 20;
      for (GiProfile p : mig.gpuInstanceProfiles()) {
        MigProfile parsed = MigProfile.parse(p.name());
        int gb = MigProfile.memoryGb(p.memoryMB(), totalBytes);
        require(
            parsed.memoryGb() == gb && parsed.gpuSlices() <= mig.computeSlices(),
            "mig.gpuInstanceProfiles["
                + p.name()
                + "]: memoryMB "
                + p.memoryMB()
                + " of a "
                + memoryMiB
                + " MiB GPU names the profile "
                + parsed.gpuSlices()
                + "g."
                + gb
                + "gb, not "
                + p.name());
        for (int start : p.placementStarts()) {
          require(
              start + p.placementSize() <= mig.memorySlices(),
              "mig.gpuInstanceProfiles["
                  + p.name()
                  + "]: placement "
                  + start
                  + ":"
                  + p.placementSize()
                  + " exceeds the "
                  + mig.memorySlices()
                  + " memory slices");
        }
      }
    }
  }

  /** The PCI device id as an int. */
  public int pciDevice() {
    return Integer.parseInt(pciDeviceId.substring(2), 16);
  }

  /** Every PCI device id of this GPU (without vendor), the primary one first. */
  public List<Integer> pciDevices() {
    List<Integer> out = new java.util.ArrayList<>();
    out.add(pciDevice());
    for (String v : pciDeviceIdVariants) {
      out.add(Integer.parseInt(v.substring(2), 16));
    }
    return out;
  }

  /** The PCI subsystem device id as an int. */
  public int pciSubsystem() {
    return Integer.parseInt(pciSubsystemId.substring(2), 16);
  }

  /** The PCI class code as an int. */
  public int pciClassCode() {
    return Integer.parseInt(pciClass.substring(2), 16);
  }

  /** CUDA compute capability major. */
  public int computeMajor() {
    return Integer.parseInt(computeCapability.substring(0, computeCapability.indexOf('.')));
  }

  /** CUDA compute capability minor. */
  public int computeMinor() {
    return Integer.parseInt(computeCapability.substring(computeCapability.indexOf('.') + 1));
  }

  /** True when the model supports MIG. */
  public boolean migCapable() {
    return mig != null;
  }

  private static void hex(String value, String field) {
    require(
        value != null && value.toLowerCase(Locale.ROOT).matches("0x[0-9a-f]{1,8}"),
        field + ": expected a hex number like 0x2330, got " + value);
  }

  /** A profile's memory may not exceed 1 TiB (and MiB shifted to bytes must fit a long). */
  static final long MAX_MEMORY_MIB = 1L << 20;

  /** A number within bounds, or an error naming the field and the range. */
  static void range(long value, long min, long max, String field) {
    require(
        value >= min && value <= max,
        field + ": expected a whole number from " + min + " to " + max + ", got " + value);
  }

  static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * Board power.
   *
   * @param idleWatts draw when idle
   * @param maxWatts draw at full load
   */
  public record Power(int idleWatts, int maxWatts) {
    public Power {
      range(idleWatts, 1, 10_000, "idleWatts");
      range(maxWatts, idleWatts, 10_000, "maxWatts");
    }
  }

  /**
   * Maximum clocks.
   *
   * @param smMhz SM clock
   * @param memoryMhz memory clock
   */
  public record Clocks(int smMhz, int memoryMhz) {
    public Clocks {
      range(smMhz, 1, 100_000, "smMhz");
      range(memoryMhz, 1, 100_000, "memoryMhz");
    }
  }

  /**
   * The MIG geometry of a model.
   *
   * @param computeSlices compute slices one GPU has (7)
   * @param memorySlices memory slices one GPU has (8)
   * @param gpuInstanceProfiles the GPU-instance profiles, in the order {@code nvidia-smi} lists
   *     them
   */
  public record Mig(int computeSlices, int memorySlices, List<GiProfile> gpuInstanceProfiles) {
    public Mig {
      range(computeSlices, 1, 8, "computeSlices");
      range(memorySlices, 1, 8, "memorySlices");
      require(
          gpuInstanceProfiles != null && !gpuInstanceProfiles.isEmpty(),
          "gpuInstanceProfiles: at least one profile required");
      Set<Integer> ids = new HashSet<>();
      Set<Integer> indexes = new HashSet<>();
      for (GiProfile p : gpuInstanceProfiles) {
        require(ids.add(p.id()), "gpuInstanceProfiles: duplicate id " + p.id());
        require(indexes.add(p.index()), "gpuInstanceProfiles: duplicate index " + p.index());
      }
      gpuInstanceProfiles = List.copyOf(gpuInstanceProfiles);
    }
  }

  /**
   * A GPU-instance profile, with the numbers {@code nvidia-smi mig -lgip} and {@code -lgipp} show.
   *
   * @param index NVML profile constant
   * @param id NVML profile id
   * @param name profile name, e.g. {@code 1g.10gb+me}; must match memoryMB by go-nvlib's rounding
   * @param instances most instances on one GPU
   * @param memoryMB memory
   * @param multiprocessors SMs
   * @param copyEngines copy engines
   * @param decoders decoders
   * @param encoders encoders
   * @param jpeg JPEG engines
   * @param ofa optical-flow engines
   * @param placementStarts the memory slices an instance can start at
   * @param placementSize memory slices an instance takes
   */
  public record GiProfile(
      int index,
      int id,
      String name,
      int instances,
      long memoryMB,
      int multiprocessors,
      int copyEngines,
      int decoders,
      int encoders,
      int jpeg,
      int ofa,
      List<Integer> placementStarts,
      int placementSize) {
    public GiProfile {
      require(name != null, "name: required");
      MigProfile.parse(name);
      range(index, 0, 1024, "index");
      range(id, 0, 1024, "id");
      range(instances, 1, 8, "instances");
      range(memoryMB, 1, MAX_MEMORY_MIB, "memoryMB");
      range(multiprocessors, 1, 1024, "multiprocessors");
      range(copyEngines, 0, 64, "copyEngines");
      range(decoders, 0, 64, "decoders");
      range(encoders, 0, 64, "encoders");
      range(jpeg, 0, 64, "jpeg");
      range(ofa, 0, 64, "ofa");
      require(
          placementStarts != null && !placementStarts.isEmpty(),
          "placementStarts: at least one start required");
      range(placementSize, 1, 8, "placementSize");
      for (Integer start : placementStarts) {
        require(start != null, "placementStarts: a start may not be null");
        range(start, 0, 7, "placementStarts");
      }
      placementStarts = List.copyOf(placementStarts);
    }

    /** Parsed name. */
    public MigProfile profile() {
      return MigProfile.parse(name);
    }
  }
}

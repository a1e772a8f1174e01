package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.PciDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A simulated node's {@code /sys}, laid out as Linux lays out the parts that the sandbox programs
 * and the sandbox validator read: PCI devices ({@code bus/pci/devices/<address>} with {@code
 * vendor}, {@code device}, {@code class}, {@code numa_node}, an {@code iommu_group} link and a
 * {@code driver} link into {@code bus/pci/drivers/<driver>}), mdev parents ({@code
 * class/mdev_bus/<address>} linking to the device, whose {@code mdev_supported_types/nvidia-<n>}
 * hold {@code name} and {@code available_instances}), and mdev devices ({@code
 * bus/mdev/devices/<uuid>} linking to {@code <parent>/<uuid>}, whose {@code mdev_type} links to its
 * type). The one owner of that layout in the simulator; each node's hardware is written once when
 * its kubelet starts.
 */
final class SimulatedSysfs {
  /** The virtio network controller of every simulated node (NFD's pci-1af4). */
  static final String VIRTIO_NIC = "0000:00:03.0";

  static final String VFIO_PCI = "vfio-pci";
  static final String NVIDIA_DRIVER = "nvidia";

  /** What a vGPU type's {@code name} file starts with (NVIDIA's host driver: "NVIDIA A100-4C"). */
  static final String VGPU_NAME_PREFIX = "NVIDIA ";

  private final Path root;

  /** {@code root} is the node's {@code /sys}. */
  SimulatedSysfs(Path root) {
    this.root = root;
  }

  Path root() {
    return root;
  }

  private Path devices() {
    return root.resolve("bus/pci/devices");
  }

  /**
   * Writes the node's PCI devices: the virtio NIC and each GPU (its IOMMU group is its index plus
   * one; the NIC's is 0). Idempotent; bound drivers and vGPU state are left alone.
   */
  void writePciDevices(List<GpuDevice> gpus) throws IOException {
    device(VIRTIO_NIC, 0x1af4, 0x1000, 0x020000, -1, 0);
    for (GpuDevice g : gpus) {
      device(
          sysfsAddress(g.pciBusId()),
          GpuDevice.NVIDIA_VENDOR_ID,
          g.pciDevice(),
          g.pciClass(),
          g.numaNode(),
          g.index() + 1);
    }
  }

  /** NVML's {@code 00000000:17:00.0} as sysfs names it: {@code 0000:17:00.0}. */
  static String sysfsAddress(String nvmlBusId) {
    String id = nvmlBusId.toLowerCase(Locale.ROOT);
    return id.length() > 12 ? id.substring(id.length() - 12) : id;
  }

  private void device(String address, int vendor, int device, int classCode, int numa, int group)
      throws IOException {
    Path d = Files.createDirectories(devices().resolve(address));
    Files.writeString(d.resolve("vendor"), String.format(Locale.ROOT, "0x%04x%n", vendor));
    Files.writeString(d.resolve("device"), String.format(Locale.ROOT, "0x%04x%n", device));
    Files.writeString(d.resolve("class"), String.format(Locale.ROOT, "0x%06x%n", classCode));
    Files.writeString(d.resolve("numa_node"), numa + "\n");
    Files.createDirectories(root.resolve("kernel/iommu_groups/" + group));
    link(d.resolve("iommu_group"), "../../../../kernel/iommu_groups/" + group);
  }

  /** The NVIDIA GPUs' addresses, in address order (NVML's index order). */
  List<String> nvidiaGpus() throws IOException {
    return PciDevices.scan(root).stream()
        .filter(PciDevices.Device::isNvidiaGpu)
        .map(PciDevices.Device::address)
        .toList();
  }

  /** The driver bound to a device, or null. */
  String driver(String address) throws IOException {
    return PciDevices.driver(root, address);
  }

  /** Binds the device to {@code driver} (unbinding it from another first). */
  void bind(String address, String driver) throws IOException {
    Files.createDirectories(root.resolve("bus/pci/drivers").resolve(driver));
    link(devices().resolve(address).resolve("driver"), "../../drivers/" + driver);
  }

  /** Unbinds the device from its driver. */
  void unbind(String address) throws IOException {
    Files.deleteIfExists(devices().resolve(address).resolve("driver"));
  }

  /** The device's PCI device id (without the vendor). */
  int deviceId(String address) throws IOException {
    String s = Files.readString(devices().resolve(address).resolve("device")).trim();
    return Integer.parseInt(s.startsWith("0x") ? s.substring(2) : s, 16);
  }

  /** The device's NUMA node, -1 when unknown. */
  int numaNode(String address) {
    try {
      return Integer.parseInt(
          Files.readString(devices().resolve(address).resolve("numa_node")).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** The device's IOMMU group, or null without one. */
  String iommuGroup(String address) throws IOException {
    Path link = devices().resolve(address).resolve("iommu_group");
    return Files.isSymbolicLink(link)
        ? Files.readSymbolicLink(link).getFileName().toString()
        : null;
  }

  /**
   * Makes the device an mdev parent offering these vGPU types ({@code nvidia-<n>} in order, each
   * with its {@code name} and how many instances fit).
   */
  void addMdevParent(String address, Map<String, Integer> typesAndInstances) throws IOException {
    Path types = devices().resolve(address).resolve("mdev_supported_types");
    int n = 1;
    for (Map.Entry<String, Integer> t : typesAndInstances.entrySet()) {
      Path dir = Files.createDirectories(types.resolve("nvidia-" + n++));
      Files.writeString(dir.resolve("name"), VGPU_NAME_PREFIX + t.getKey() + "\n");
      Files.writeString(dir.resolve("available_instances"), t.getValue() + "\n");
      Files.writeString(dir.resolve("device_api"), "vfio-pci\n");
    }
    Files.createDirectories(root.resolve("class/mdev_bus"));
    link(root.resolve("class/mdev_bus").resolve(address), "../../bus/pci/devices/" + address);
  }

  /** The vGPU types a parent offers: type name (without the prefix) → its directory. */
  Map<String, Path> mdevTypes(String address) throws IOException {
    Map<String, Path> out = new LinkedHashMap<>();
    for (Path dir : list(devices().resolve(address).resolve("mdev_supported_types"))) {
      out.put(typeName(Files.readString(dir.resolve("name"))), dir);
    }
    return out;
  }

  /** The mdev parents ({@code class/mdev_bus}). */
  List<String> mdevParents() throws IOException {
    return list(root.resolve("class/mdev_bus")).stream()
        .map(p -> p.getFileName().toString())
        .toList();
  }

  /** Removes every mdev device of the parent and then the parent itself. */
  void removeMdevParent(String address) throws IOException {
    removeMdevDevices(address);
    deleteTree(devices().resolve(address).resolve("mdev_supported_types"));
    Files.deleteIfExists(root.resolve("class/mdev_bus").resolve(address));
  }

  /**
   * Creates an mdev device of {@code type} on the parent, as writing a UUID into the type's {@code
   * create} file does; an IOException when the type is not offered or none is left.
   */
  String createMdev(String address, String type) throws IOException {
    Path typeDir = mdevTypes(address).get(type);
    if (typeDir == null) {
      throw new IOException("vGPU type " + type + " is not supported on GPU " + address);
    }
    Path available = typeDir.resolve("available_instances");
    int left = Integer.parseInt(Files.readString(available).trim());
    if (left <= 0) {
      throw new IOException("no " + type + " vGPU instance left on GPU " + address);
    }
    String uuid = UUID.randomUUID().toString();
    Path dev = Files.createDirectories(devices().resolve(address).resolve(uuid));
    link(dev.resolve("mdev_type"), "../mdev_supported_types/" + typeDir.getFileName());
    Files.createDirectories(root.resolve("bus/mdev/devices"));
    link(
        root.resolve("bus/mdev/devices").resolve(uuid),
        "../../../bus/pci/devices/" + address + "/" + uuid);
    Files.writeString(available, (left - 1) + "\n");
    return uuid;
  }

  /** One mdev device: its UUID, its parent's address and its type's name. */
  record Mdev(String uuid, String parent, String type) {}

  /** Every mdev device ({@code bus/mdev/devices}), in UUID order. */
  List<Mdev> mdevDevices() throws IOException {
    List<Mdev> out = new ArrayList<>();
    for (Path link : list(root.resolve("bus/mdev/devices"))) {
      Path target = Files.readSymbolicLink(link);
      String parent = target.getParent().getFileName().toString();
      String name = Files.readString(link.resolve("mdev_type/name"));
      out.add(new Mdev(link.getFileName().toString(), parent, typeName(name)));
    }
    return out;
  }

  /** Removes the parent's mdev devices (giving their instances back). */
  void removeMdevDevices(String address) throws IOException {
    for (Mdev m : mdevDevices()) {
      if (!m.parent().equals(address)) {
        continue;
      }
      Path dev = devices().resolve(address).resolve(m.uuid());
      Path available = dev.resolve("mdev_type").toRealPath().resolve("available_instances");
      int left = Integer.parseInt(Files.readString(available).trim());
      Files.writeString(available, (left + 1) + "\n");
      Files.deleteIfExists(root.resolve("bus/mdev/devices").resolve(m.uuid()));
      deleteTree(dev);
    }
  }

  private static String typeName(String nameFile) {
    String s = nameFile.trim();
    return s.startsWith(VGPU_NAME_PREFIX) ? s.substring(VGPU_NAME_PREFIX.length()) : s;
  }

  private static void link(Path link, String target) throws IOException {
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, Path.of(target));
  }

  private static List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}

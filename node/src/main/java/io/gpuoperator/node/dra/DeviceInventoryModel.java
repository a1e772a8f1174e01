package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Counter;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigGeometry;
import io.gpuoperator.node.gpu.Placement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the node's GPUs into the devices it offers through DRA, with NVIDIA's DRA driver's device
 * names, attributes and capacities. Pure.
 *
 * <ul>
 *   <li>A GPU without MIG mode is one device {@code gpu-<minor>}.
 *   <li>A GPU in MIG mode offers its MIG devices {@code
 *       gpu-<minor>-mig-<profile>-<giProfileId>-<placementStart>}; a GPU that is withdrawn
 *       (unhealthy) offers nothing.
 *   <li>With partitionable devices, a GPU in MIG mode whose MIG devices were all created by this
 *       plugin offers every placement of every profile instead, consuming from the GPU's counter
 *       set ({@code memory-slice-<i>}, {@code compute-slices}, {@code multiprocessors}, {@code
 *       memory}, and an instance limit for profiles that have fewer instances than placements, such
 *       as {@code 1g.10gb+me}): the scheduler picks a profile and placement per claim, and the
 *       plugin creates the MIG device when the claim is prepared. A GPU with MIG devices someone
 *       else created stays static, so nothing is created over them.
 * </ul>
 */
public final class DeviceInventoryModel {
  /** Counter names must be DNS labels; capacities keep NVIDIA's camel-case names. */
  static final String COUNTER_MEMORY_SLICE = "memory-slice-";

  static final String COUNTER_COMPUTE_SLICES = "compute-slices";
  static final String COUNTER_MULTIPROCESSORS = "multiprocessors";
  static final String COUNTER_MEMORY = "memory";

  private DeviceInventoryModel() {}

  /**
   * What the node offers.
   *
   * @param partitionable publish MIG placements with shared counters where a GPU allows it
   * @param managedMig MIG devices this plugin created for prepared claims ({@link MigKey})
   * @param unhealthy UUIDs of GPUs and MIG devices to withdraw
   */
  public record Options(boolean partitionable, Set<MigKey> managedMig, Set<String> unhealthy) {
    public Options {
      managedMig = Set.copyOf(managedMig);
      unhealthy = Set.copyOf(unhealthy);
    }

    /** Static publishing, nothing withdrawn. */
    public static Options plain() {
      return new Options(false, Set.of(), Set.of());
    }
  }

  /** A MIG device by GPU index and GPU-instance id. */
  public record MigKey(int gpuIndex, int gpuInstanceId) {}

  /** The inventory. */
  public static DeviceInventory build(NodeGpus gpus, Options options) {
    List<DraDevice> devices = new ArrayList<>();
    List<CounterSet> counterSets = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (NodeGpus.Gpu gpu : gpus.gpus()) {
      GpuDevice d = gpu.device();
      if (options.unhealthy().contains(d.uuid())) {
        notes.add("GPU " + d.index() + " (" + d.uuid() + ") is unhealthy: withdrawn");
        continue;
      }
      Map<String, DeviceAttribute> common = commonAttributes(gpus, d);
      if (!gpu.migEnabled()) {
        devices.add(wholeGpu(gpu, common));
        continue;
      }
      List<MigDevice> foreign =
          gpu.migDevices().stream()
              .filter(m -> !options.managedMig().contains(new MigKey(d.index(), m.gpuInstanceId())))
              .toList();
      if (options.partitionable() && foreign.isEmpty() && gpu.geometry() != null) {
        counterSets.add(counterSet(gpu));
        devices.addAll(placements(gpu, common));
        continue;
      }
      if (options.partitionable() && !foreign.isEmpty()) {
        notes.add(
            "GPU "
                + d.index()
                + " has "
                + foreign.size()
                + " MIG device(s) this plugin did not create: published as they are, not as"
                + " partitionable placements");
      }
      Set<String> names = new HashSet<>();
      for (MigDevice m : gpu.migDevices()) {
        if (options.unhealthy().contains(m.uuid())) {
          notes.add("MIG device " + m.uuid() + " is unhealthy: withdrawn");
          continue;
        }
        devices.add(existingMig(gpu, m, common, names));
      }
    }
    return new DeviceInventory(devices, counterSets, notes);
  }

  /** The name of a GPU's counter set. */
  public static String counterSetName(GpuDevice gpu) {
    return "gpu-" + gpu.minor() + "-counters";
  }

  /** The name of a MIG device at a placement: {@code gpu-0-mig-1g10gb-19-0}. */
  public static String migName(GpuDevice gpu, String profile, int giProfileId, int start) {
    return "gpu-"
        + gpu.minor()
        + "-mig-"
        + GpuFacts.profileLabel(profile)
        + "-"
        + giProfileId
        + "-"
        + start;
  }

  private static Map<String, DeviceAttribute> commonAttributes(NodeGpus gpus, GpuDevice d) {
    Map<String, DeviceAttribute> a = new LinkedHashMap<>();
    a.put(DraNames.ATTR_PRODUCT_NAME, string(d.name()));
    a.put(DraNames.ATTR_BRAND, string(GpuFacts.brand(d.name())));
    a.put(
        DraNames.ATTR_ARCHITECTURE,
        string(GpuFacts.architecture(d.computeMajor(), d.computeMinor())));
    a.put(
        DraNames.ATTR_CUDA_COMPUTE_CAPABILITY,
        version(GpuFacts.semver(d.computeMajor() + "." + d.computeMinor())));
    a.put(DraNames.ATTR_DRIVER_VERSION, version(GpuFacts.semver(gpus.driverVersion())));
    a.put(
        DraNames.ATTR_CUDA_DRIVER_VERSION, version(GpuFacts.cudaVersion(gpus.cudaDriverVersion())));
    return a;
  }

  private static DraDevice wholeGpu(NodeGpus.Gpu gpu, Map<String, DeviceAttribute> common) {
    GpuDevice d = gpu.device();
    Map<String, DeviceAttribute> a = new LinkedHashMap<>();
    a.put(DraNames.ATTR_TYPE, string(DraNames.TYPE_GPU));
    a.put(DraNames.ATTR_UUID, string(d.uuid()));
    a.putAll(common);
    a.put(DraNames.ATTR_INDEX, integer(d.index()));
    a.put(DraNames.ATTR_MINOR, integer(d.minor()));
    pci(gpu, a);
    Map<String, DeviceCapacity> c = new LinkedHashMap<>();
    c.put(DraNames.CAP_MEMORY, capacity(bytes(d.memoryTotalBytes())));
    return new DraDevice(
        "gpu-" + d.minor(), DraDevice.Kind.GPU, d.index(), d.uuid(), null, a, c, null, null);
  }

  private static void pci(NodeGpus.Gpu gpu, Map<String, DeviceAttribute> a) {
    a.put(DraNames.ATTR_PCI_BUS_ID, string(gpu.device().sysfsBusId()));
    if (gpu.pcieRoot() != null) {
      a.put(DraNames.ATTR_PCIE_ROOT, string(gpu.pcieRoot()));
    }
  }

  private static DraDevice existingMig(
      NodeGpus.Gpu gpu, MigDevice m, Map<String, DeviceAttribute> common, Set<String> taken) {
    GpuDevice d = gpu.device();
    String name = migName(d, m.profile().name(), m.gpuInstanceProfileId(), m.placement().start());
    if (!taken.add(name)) {
      // Several compute instances in one GPU instance: the compute instance tells them apart.
      name = name + "-" + m.computeInstanceId();
      taken.add(name);
    }
    var attrs = m.attributes();
    Map<String, DeviceAttribute> a = migAttributes(d, m.uuid(), m.profile().name(), common);
    Map<String, DeviceCapacity> c =
        migCapacity(
            attrs.multiprocessorCount(),
            attrs.sharedCopyEngineCount(),
            attrs.sharedDecoderCount(),
            attrs.sharedEncoderCount(),
            attrs.sharedJpegCount(),
            attrs.sharedOfaCount(),
            attrs.memorySizeMb(),
            m.placement());
    return new DraDevice(
        name,
        DraDevice.Kind.MIG,
        d.index(),
        m.uuid(),
        new DraDevice.MigSlot(m.gpuInstanceProfileId(), m.profile().name(), m.placement()),
        a,
        c,
        null,
        null);
  }

  private static Map<String, DeviceAttribute> migAttributes(
      GpuDevice parent, String uuid, String profile, Map<String, DeviceAttribute> common) {
    Map<String, DeviceAttribute> a = new LinkedHashMap<>();
    a.put(DraNames.ATTR_TYPE, string(DraNames.TYPE_MIG));
    if (uuid != null) {
      a.put(DraNames.ATTR_UUID, string(uuid));
    }
    a.put(DraNames.ATTR_PARENT_UUID, string(parent.uuid()));
    a.put(DraNames.ATTR_PROFILE, string(profile));
    a.putAll(common);
    return a;
  }

  private static Map<String, DeviceCapacity> migCapacity(
      int multiprocessors,
      int copyEngines,
      int decoders,
      int encoders,
      int jpeg,
      int ofa,
      long memoryMb,
      Placement placement) {
    Map<String, DeviceCapacity> c = new LinkedHashMap<>();
    c.put(DraNames.CAP_MULTIPROCESSORS, capacity(Long.toString(multiprocessors)));
    c.put(DraNames.CAP_COPY_ENGINES, capacity(Long.toString(copyEngines)));
    c.put(DraNames.CAP_DECODERS, capacity(Long.toString(decoders)));
    c.put(DraNames.CAP_ENCODERS, capacity(Long.toString(encoders)));
    c.put(DraNames.CAP_JPEG_ENGINES, capacity(Long.toString(jpeg)));
    c.put(DraNames.CAP_OFA_ENGINES, capacity(Long.toString(ofa)));
    c.put(DraNames.CAP_MEMORY, capacity(bytes(memoryMb << 20)));
    for (int i = placement.start(); i < placement.start() + placement.size(); i++) {
      c.put(DraNames.CAP_MEMORY_SLICE + i, capacity("1"));
    }
    return c;
  }

  /**
   * The counters of a partitionable GPU, from its MIG table: one per memory slice, its compute
   * slices, multiprocessors and memory, and an instance limit for each profile that allows fewer
   * instances than it has placements. Every set of placements they admit fits the GPU by the same
   * rules MIG validation applies ({@code DeviceInventoryModelTest} checks this against {@link
   * MigGeometry#check}).
   */
  private static CounterSet counterSet(NodeGpus.Gpu gpu) {
    GpuDevice d = gpu.device();
    Map<String, Counter> counters = new LinkedHashMap<>();
    int slices = memorySlices(gpu.geometry());
    for (int i = 0; i < slices; i++) {
      counters.put(COUNTER_MEMORY_SLICE + i, counter(1));
    }
    counters.put(COUNTER_COMPUTE_SLICES, counter(gpu.geometry().computeSlices()));
    counters.put(COUNTER_MULTIPROCESSORS, counter(d.multiprocessorCount()));
    counters.put(COUNTER_MEMORY, new Counter(new Quantity(bytes(d.memoryTotalBytes()))));
    for (MigGeometry.Profile p : gpu.geometry().profiles()) {
      if (limited(p)) {
        counters.put(instanceCounter(p), counter(p.maxInstances()));
      }
    }
    return new CounterSet(counters, counterSetName(d));
  }

  /** The GPU's memory slices: the end of its furthest placement. */
  private static int memorySlices(MigGeometry geometry) {
    int slices = 0;
    for (MigGeometry.Profile p : geometry.profiles()) {
      for (Placement pl : p.placements()) {
        slices = Math.max(slices, pl.start() + pl.size());
      }
    }
    return slices;
  }

  private static boolean limited(MigGeometry.Profile p) {
    return p.maxInstances() < p.placements().size();
  }

  private static String instanceCounter(MigGeometry.Profile p) {
    return GpuFacts.profileLabel(p.name()) + "-instances";
  }

  /**
   * Every placement of every profile, each GPU's placements together. Within a profile, those
   * covering at least half the GPU's memory come from the top and smaller ones from the bottom, so
   * the scheduler's first fit packs mixed sizes: 3g.40gb then two 2g.20gb fit one H100 (3g at slice
   * 4, 2g at 0 and 2), where bottom-first would put the 3g at 0 and leave room for only one 2g.
   */
  private static List<DraDevice> placements(NodeGpus.Gpu gpu, Map<String, DeviceAttribute> common) {
    GpuDevice d = gpu.device();
    int slices = memorySlices(gpu.geometry());
    List<DraDevice> out = new ArrayList<>();
    for (MigGeometry.Profile p : gpu.geometry().profiles()) {
      GpuInstanceProfile profile = gpu.profile(p.id());
      List<Placement> order = new ArrayList<>(p.placements());
      Comparator<Placement> byStart = Comparator.comparingInt(Placement::start);
      boolean large = !order.isEmpty() && order.get(0).size() * 2 >= slices;
      order.sort(large ? byStart.reversed() : byStart);
      for (Placement pl : order) {
        // No uuid: a placement has none until it is created, and publishing it afterwards would
        // change the slice (a new pool generation) at every prepare.
        Map<String, DeviceAttribute> a = migAttributes(d, null, profile.name(), common);
        Map<String, DeviceCapacity> c =
            migCapacity(
                profile.multiprocessorCount(),
                profile.copyEngineCount(),
                profile.decoderCount(),
                profile.encoderCount(),
                profile.jpegCount(),
                profile.ofaCount(),
                profile.memorySizeMb(),
                pl);
        Map<String, Long> consumes = new LinkedHashMap<>();
        for (int i = pl.start(); i < pl.start() + pl.size(); i++) {
          consumes.put(COUNTER_MEMORY_SLICE + i, 1L);
        }
        consumes.put(COUNTER_COMPUTE_SLICES, (long) p.profile().gpuSlices());
        consumes.put(COUNTER_MULTIPROCESSORS, (long) profile.multiprocessorCount());
        consumes.put(COUNTER_MEMORY, profile.memorySizeMb() << 20);
        if (limited(p)) {
          consumes.put(instanceCounter(p), 1L);
        }
        out.add(
            new DraDevice(
                migName(d, profile.name(), profile.id(), pl.start()),
                DraDevice.Kind.MIG_PLACEMENT,
                d.index(),
                null,
                new DraDevice.MigSlot(profile.id(), profile.name(), pl),
                a,
                c,
                counterSetName(d),
                consumes));
      }
    }
    return out;
  }

  static DeviceAttribute string(String s) {
    return new DeviceAttribute(null, null, s, null);
  }

  static DeviceAttribute integer(long i) {
    return new DeviceAttribute(null, i, null, null);
  }

  static DeviceAttribute version(String v) {
    return new DeviceAttribute(null, null, null, v);
  }

  private static DeviceCapacity capacity(String quantity) {
    return new DeviceCapacity(null, new Quantity(quantity));
  }

  private static Counter counter(long value) {
    return new Counter(new Quantity(Long.toString(value)));
  }

  /** Bytes as a quantity, in MiB when exact ({@code 81559Mi}), as NVIDIA's driver writes it. */
  static String bytes(long bytes) {
    return bytes % (1L << 20) == 0 ? (bytes >> 20) + "Mi" : Long.toString(bytes);
  }
}

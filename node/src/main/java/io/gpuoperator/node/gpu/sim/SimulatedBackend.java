package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.AbstractGpuEventSubscription;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.GpuLink;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.Profiling;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.TopologyLevel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link GpuBackend} over simulated hardware described by a {@link NodeProfile}. MIG operations
 * follow the hardware's rules ({@link SimulatedGpu}), telemetry is deterministic for a seed and a
 * clock, and tests (or the simulator) inject XID and ECC events, GPU loss and backend failure.
 * UUIDs derive from the node name and seed, so every simulated node has its own.
 */
public final class SimulatedBackend implements GpuBackend {
  /** PCI bus numbers of a DGX-style 8-GPU board; more GPUs continue the pattern. */
  private static final int[] BUSES = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};

  private static final Set<GpuEventType> SUPPORTED_EVENTS =
      EnumSet.of(
          GpuEventType.SINGLE_BIT_ECC_ERROR,
          GpuEventType.DOUBLE_BIT_ECC_ERROR,
          GpuEventType.XID_CRITICAL_ERROR);

  private final NodeProfile profile;
  private final Clock clock;
  private final long startMillis;
  private final List<SimulatedGpu> gpus = new ArrayList<>();
  private final List<TelemetryModel> telemetry = new ArrayList<>();
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private volatile GpuBackendException failure;
  private boolean closed;

  /** A backend for a node profile, with the system clock. */
  public SimulatedBackend(NodeProfile profile, String nodeName) {
    this(profile, nodeName, Clock.systemUTC());
  }

  /** A backend whose telemetry follows the given clock (tests pass a fixed or stepped one). */
  public SimulatedBackend(NodeProfile profile, String nodeName, Clock clock) {
    this.profile = profile;
    this.clock = clock;
    this.startMillis = clock.millis();
    int total = profile.gpuCount();
    int index = 0;
    for (NodeProfile.GpuGroup group : profile.gpus()) {
      HardwareProfile hw = group.model();
      for (int i = 0; i < group.count(); i++, index++) {
        String seed = nodeName + "/" + profile.seed() + "/gpu" + index;
        GpuDevice device =
            new GpuDevice(
                index,
                "GPU-" + UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8)),
                hw.name(),
                String.format(Locale.ROOT, "00000000:%02X:00.0", bus(index)),
                (hw.pciDevice() << 16) | GpuDevice.NVIDIA_VENDOR_ID,
                (hw.pciSubsystem() << 16) | GpuDevice.NVIDIA_VENDOR_ID,
                hw.pciClassCode(),
                index,
                hw.memoryMiB() << 20,
                hw.computeMajor(),
                hw.computeMinor(),
                (int) ((long) index * profile.numaNodes() / Math.max(1, total)),
                hw.migCapable(),
                hw.multiprocessors());
        SimulatedGpu gpu = new SimulatedGpu(hw, device, seed);
        gpus.add(gpu);
        telemetry.add(new TelemetryModel(hw, profile.seed(), index));
        if (group.mig() != null && group.mig().enabled()) {
          gpu.forceMigMode(true);
          applyLayout(gpu, group.mig().devices());
        }
      }
    }
  }

  /** A backend from a node-profile file. */
  public static SimulatedBackend fromFile(Path nodeProfile, String nodeName) {
    return new SimulatedBackend(HardwareProfiles.loadNode(nodeProfile), nodeName);
  }

  private static int bus(int index) {
    return index < BUSES.length ? BUSES[index] : 0xDC + index;
  }

  private static void applyLayout(SimulatedGpu gpu, Map<String, Integer> devices) {
    // Largest first, the order that always fits when the layout fits at all.
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(devices.entrySet());
    entries.sort(
        Comparator.comparingInt(
                (Map.Entry<String, Integer> e) ->
                    gpu.giProfileByName(e.getKey()).profile().gpuSlices())
            .reversed());
    for (Map.Entry<String, Integer> e : entries) {
      HardwareProfile.GiProfile p = gpu.giProfileByName(e.getKey());
      for (int i = 0; i < e.getValue(); i++) {
        GpuInstance gi;
        try {
          gi = gpu.createGpuInstance(p.id(), null);
        } catch (GpuBackendException ex) {
          throw new ConfigException(
              "mig.devices: the layout " + devices + " does not fit: " + ex.getMessage(), ex);
        }
        int full = p.profile().gpuSlices();
        ComputeInstanceProfile ci =
            gpu.computeInstanceProfiles(gi.id()).stream()
                .filter(c -> c.sliceCount() == full)
                .findFirst()
                .orElseThrow();
        gpu.createComputeInstance(gi.id(), ci.id());
      }
    }
  }

  /** The profile this backend simulates. */
  public NodeProfile profile() {
    return profile;
  }

  @Override
  public String kind() {
    return "simulated";
  }

  /**
   * The NVLink fabric every simulated multi-node-NVLink GPU is attached to: one simulated rack, so
   * all such nodes of a simulation form one clique, as the trays of one NVL72 do.
   */
  public static final GpuFabric SIMULATED_FABRIC =
      new GpuFabric("5c8a1d3e-0000-4000-8000-000000000001", 1);

  /**
   * The simulated driver's {@code /proc/driver/nvidia/capabilities/fabric-imex-mgmt}: the IMEX
   * management capability's minor and mode (0400, in decimal as the driver writes it).
   */
  public static final String IMEX_MANAGEMENT_CAPABILITY =
      """
      DeviceFileMinor: 1
      DeviceFileMode: 256
      DeviceFileModify: 1
      """;

  /**
   * The character devices the simulated driver registered, as {@code /proc/devices} lists them
   * (NVIDIA's module names; majors as a typical host numbers them).
   */
  public static final String PROC_DEVICES =
      """
      Character devices:
        1 mem
        4 /dev/vc/0
      195 nvidia
      234 nvidia-caps-imex-channels
      235 nvidia-caps
      236 nvidia-nvswitch
      237 nvidia-nvlink
      510 nvidia-uvm

      Block devices:
        7 loop
        8 sd
      """;

  @Override
  public synchronized Optional<GpuFabric> fabric(int gpu) {
    open();
    return gpu(gpu).hw.multiNodeNvlink() ? Optional.of(SIMULATED_FABRIC) : Optional.empty();
  }

  @Override
  public synchronized String driverVersion() {
    open();
    return profile.driverVersion();
  }

  @Override
  public synchronized int cudaDriverVersion() {
    open();
    return profile.cudaDriverVersion();
  }

  @Override
  public synchronized List<GpuDevice> devices() {
    open();
    return gpus.stream().map(g -> g.device).toList();
  }

  @Override
  public synchronized MigMode migMode(int gpu) {
    return gpu(gpu).migMode();
  }

  @Override
  public synchronized MigMode setMigMode(int gpu, boolean enabled) {
    return gpu(gpu).setMigMode(enabled);
  }

  @Override
  public synchronized void resetGpu(int gpu) {
    gpu(gpu).reset();
  }

  @Override
  public synchronized List<MigDevice> migDevices(int gpu) {
    return gpu(gpu).migDevices();
  }

  @Override
  public synchronized List<GpuInstanceProfile> gpuInstanceProfiles(int gpu) {
    return gpu(gpu).gpuInstanceProfiles();
  }

  @Override
  public synchronized List<Placement> gpuInstancePossiblePlacements(int gpu, int profileId) {
    return gpu(gpu).possiblePlacements(profileId);
  }

  @Override
  public synchronized int gpuInstanceRemainingCapacity(int gpu, int profileId) {
    return gpu(gpu).remainingCapacity(profileId);
  }

  @Override
  public synchronized List<GpuInstance> gpuInstances(int gpu) {
    return gpu(gpu).gpuInstances();
  }

  @Override
  public synchronized GpuInstance createGpuInstance(int gpu, int profileId) {
    return gpu(gpu).createGpuInstance(profileId, null);
  }

  @Override
  public synchronized GpuInstance createGpuInstance(int gpu, int profileId, Placement placement) {
    if (placement == null) {
      throw new GpuBackendException.InvalidArgument("placement: required", null);
    }
    return gpu(gpu).createGpuInstance(profileId, placement);
  }

  @Override
  public synchronized void destroyGpuInstance(int gpu, int gpuInstanceId) {
    gpu(gpu).destroyGpuInstance(gpuInstanceId);
  }

  @Override
  public synchronized List<ComputeInstanceProfile> computeInstanceProfiles(
      int gpu, int gpuInstanceId) {
    return gpu(gpu).computeInstanceProfiles(gpuInstanceId);
  }

  @Override
  public synchronized List<ComputeInstance> computeInstances(int gpu, int gpuInstanceId) {
    return gpu(gpu).computeInstances(gpuInstanceId);
  }

  @Override
  public synchronized ComputeInstance createComputeInstance(
      int gpu, int gpuInstanceId, int profileId) {
    return gpu(gpu).createComputeInstance(gpuInstanceId, profileId);
  }

  @Override
  public synchronized void destroyComputeInstance(
      int gpu, int gpuInstanceId, int computeInstanceId) {
    gpu(gpu).destroyComputeInstance(gpuInstanceId, computeInstanceId);
  }

  @Override
  public synchronized Telemetry telemetry(int gpu) {
    SimulatedGpu g = gpu(gpu);
    long elapsed = Math.max(0, clock.millis() - startMillis);
    return telemetry.get(gpu).read(elapsed, g.ecc);
  }

  @Override
  public synchronized Profiling profiling(int gpu) {
    gpu(gpu);
    return telemetry.get(gpu).profiling(Math.max(0, clock.millis() - startMillis));
  }

  @Override
  public synchronized long clockEventReasons(int gpu) {
    return gpu(gpu).clockEventReasons;
  }

  @Override
  public synchronized Telemetry migTelemetry(int gpu, int migIndex) {
    SimulatedGpu g = gpu(gpu);
    MigDevice mig =
        g.migDevices().stream()
            .filter(m -> m.index() == migIndex)
            .findFirst()
            .orElseThrow(
                () ->
                    new GpuBackendException.NotFound(
                        "GPU " + gpu + " has no MIG device " + migIndex, null));
    long elapsed = Math.max(0, clock.millis() - startMillis);
    Telemetry parent = telemetry.get(gpu).read(elapsed, g.ecc);
    long total = mig.attributes().memorySizeMb() << 20;
    long reserved = Math.min(total / 100, 64L << 20);
    // Each MIG device fills its memory like the parent, shifted by its index so they differ.
    double fill = Math.min(0.95, 0.1 + parent.gpuUtilizationPercent() / 150.0 + migIndex * 0.03);
    long used = Math.round((total - reserved) * fill);
    return Telemetry.memoryOnly(used, total - reserved - used, reserved);
  }

  @Override
  public synchronized GpuLink link(int gpuA, int gpuB) {
    SimulatedGpu a = gpu(gpuA);
    SimulatedGpu b = gpu(gpuB);
    if (gpuA == gpuB) {
      return new GpuLink(gpuA, gpuB, TopologyLevel.INTERNAL, 0);
    }
    TopologyLevel level =
        a.device.numaNode() == b.device.numaNode() ? TopologyLevel.NODE : TopologyLevel.SYSTEM;
    if (Math.abs(gpuA - gpuB) == 1
        && Math.min(gpuA, gpuB) % 2 == 0
        && level == TopologyLevel.NODE) {
      level = TopologyLevel.SINGLE; // pairs share a PCIe switch, as on DGX boards
    }
    int links = profile.nvlink().equals("all") ? Math.min(a.hw.nvLinks(), b.hw.nvLinks()) : 0;
    return new GpuLink(gpuA, gpuB, level, links);
  }

  @Override
  public synchronized Set<GpuEventType> supportedEvents(int gpu) {
    gpu(gpu);
    return EnumSet.copyOf(SUPPORTED_EVENTS);
  }

  @Override
  public synchronized GpuEventSubscription subscribe(Set<GpuEventType> types) {
    open();
    List<Integer> registered = new ArrayList<>();
    List<Integer> unsupported = new ArrayList<>();
    for (SimulatedGpu g : gpus) {
      boolean any = types.stream().anyMatch(SUPPORTED_EVENTS::contains);
      (any ? registered : unsupported).add(g.device.index());
    }
    Subscription s = new Subscription(EnumSet.copyOf(types), registered, unsupported);
    subscriptions.add(s);
    return s;
  }

  @Override
  public synchronized void close() {
    closed = true;
    subscriptions.forEach(Subscription::close);
  }

  // ---- fault injection and test controls (not part of GpuBackend)

  /** Injects an XID error on a whole GPU. */
  public void injectXid(int gpu, long xid) {
    injectXid(gpu, GpuEvent.ALL_INSTANCES, GpuEvent.ALL_INSTANCES, xid);
  }

  /**
   * Injects an XID error on one MIG instance (GPU-instance id, compute-instance id). A GPU marked
   * lost still sends it, as the driver reports XID 79 for a GPU that has just fallen off the bus.
   */
  public void injectXid(int gpu, int gpuInstanceId, int computeInstanceId, long xid) {
    SimulatedGpu g;
    synchronized (this) {
      g = gpuEvenIfLost(gpu);
    }
    deliver(
        new GpuEvent(
            GpuEventType.XID_CRITICAL_ERROR,
            gpu,
            g.device.uuid(),
            xid,
            gpuInstanceId,
            computeInstanceId));
  }

  /** Injects an ECC error: counts it and sends the event. */
  public void injectEccError(int gpu, boolean doubleBit) {
    SimulatedGpu g;
    synchronized (this) {
      g = gpu(gpu);
      int k = doubleBit ? 1 : 0;
      g.ecc[k]++;
      g.ecc[k + 2]++;
    }
    deliver(
        new GpuEvent(
            doubleBit ? GpuEventType.DOUBLE_BIT_ECC_ERROR : GpuEventType.SINGLE_BIT_ECC_ERROR,
            gpu,
            g.device.uuid(),
            0,
            GpuEvent.ALL_INSTANCES,
            GpuEvent.ALL_INSTANCES));
  }

  /**
   * Makes the event stream fail: every subscription's next poll throws this error (null clears it),
   * as when the driver stops answering.
   */
  public void failEvents(GpuBackendException error) {
    this.failure = error;
    subscriptions.forEach(Subscription::wake);
  }

  /** Marks a GPU as fallen off the bus: its calls fail with GPU_IS_LOST. */
  public synchronized void setLost(int gpu, boolean lost) {
    gpuEvenIfLost(gpu).setLost(lost);
  }

  /**
   * Sets why the GPU's clocks are held down ({@link io.gpuoperator.node.gpu.ClockEventReasons}
   * bits; 0: running free), as a thermal or power slowdown would.
   */
  public synchronized void setClockEventReasons(int gpu, long reasons) {
    gpuEvenIfLost(gpu).clockEventReasons = reasons;
  }

  /**
   * How many event subscriptions are open (a health monitor, an exporter): an event injected with
   * none is lost, as on a real GPU nobody watches.
   */
  public int subscriptions() {
    return subscriptions.size();
  }

  /** Marks a GPU as used by processes, so a reset fails with IN_USE. */
  public synchronized void setInUse(int gpu, boolean inUse) {
    gpu(gpu).setInUse(inUse);
  }

  private void deliver(GpuEvent event) {
    for (Subscription s : subscriptions) {
      s.offer(event);
    }
  }

  private void open() {
    if (closed) {
      throw new GpuBackendException.Uninitialized("the simulated backend was shut down", null);
    }
  }

  private SimulatedGpu gpu(int index) {
    SimulatedGpu g = gpuEvenIfLost(index);
    g.requireAlive();
    return g;
  }

  private SimulatedGpu gpuEvenIfLost(int index) {
    open();
    if (index < 0 || index >= gpus.size()) {
      throw new GpuBackendException.InvalidArgument(
          "no GPU with index " + index + " (" + gpus.size() + " GPUs)", null);
    }
    return gpus.get(index);
  }

  private final class Subscription extends AbstractGpuEventSubscription {
    private static final GpuEvent WAKE = new GpuEvent(null, -1, "", 0, 0, 0);
    private final Set<GpuEventType> types;
    private final LinkedBlockingQueue<GpuEvent> queue = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    Subscription(Set<GpuEventType> types, List<Integer> registered, List<Integer> unsupported) {
      super(registered, unsupported);
      this.types = types;
    }

    void offer(GpuEvent e) {
      if (!closed && types.contains(e.type()) && registeredGpus().contains(e.gpuIndex())) {
        queue.add(e);
      }
    }

    void wake() {
      queue.add(WAKE);
    }

    @Override
    public Optional<GpuEvent> poll(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        checkState();
        long left = deadline - System.nanoTime();
        GpuEvent e = queue.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        checkState();
        if (e == null) {
          return Optional.empty();
        }
        if (e != WAKE) {
          return Optional.of(e);
        }
      }
    }

    private void checkState() {
      if (closed) {
        throw new GpuBackendException.Uninitialized("the event subscription is closed", null);
      }
      GpuBackendException f = failure;
      if (f != null) {
        throw f;
      }
    }

    @Override
    public void close() {
      closed = true;
      subscriptions.remove(this);
      wake();
    }
  }
}

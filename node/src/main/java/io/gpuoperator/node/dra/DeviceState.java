package io.gpuoperator.node.dra;

import io.gpuoperator.node.cdi.DeviceNodes;
import io.gpuoperator.node.files.AtomicFile;
import io.gpuoperator.node.files.ConfinedRoot;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.MigDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's DRA state: its GPUs as DRA devices and the claims prepared on them. Prepare and
 * unprepare are idempotent and serialised (they may create and destroy MIG devices on the same
 * GPU), and every step that changes the node is recorded in the {@link Checkpoint} before the next
 * one, so a plugin killed at any point finishes or undoes the work after a restart:
 *
 * <ol>
 *   <li>the claim's configuration is checked (a bad one fails with nothing changed);
 *   <li>the claim is recorded as started, with its devices;
 *   <li>each MIG placement is created and recorded at once;
 *   <li>time-slices are set, the MPS directory and the claim's CDI spec are written;
 *   <li>the claim is recorded as completed, with its CDI device IDs.
 * </ol>
 *
 * A claim recorded as completed is answered from the checkpoint without touching anything.
 */
public final class DeviceState implements DraPluginService.Preparer {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceState.class);

  private final GpuBackend backend;
  private final String pool;
  private final PcieRoots roots;
  private volatile boolean partitionable;
  private final CheckpointStore store;
  private final Path cdiDir;
  private final Path devRoot;
  private final Path mpsRoot;
  private final Supplier<Map<String, Integer>> capMinors;
  private final TimeSlicing timeSlicing;
  private Checkpoint checkpoint;

  /**
   * @param pool the pool name (the node name)
   * @param partitionable publish MIG placements of GPUs in MIG mode (and create them at prepare)
   * @param cdiDir where claim CDI specs go
   * @param devRoot where device nodes are on the host
   * @param mpsRoot where each MPS claim gets a pipe directory on the host
   * @param capMinors the MIG capability minors ({@code /proc/driver/nvidia-caps/mig-minors}), read
   *     when a MIG device's nodes are needed
   */
  public DeviceState(
      GpuBackend backend,
      String pool,
      PcieRoots roots,
      boolean partitionable,
      CheckpointStore store,
      Path cdiDir,
      Path devRoot,
      Path mpsRoot,
      Supplier<Map<String, Integer>> capMinors,
      TimeSlicing timeSlicing)
      throws IOException {
    this.backend = backend;
    this.pool = pool;
    this.roots = roots;
    this.partitionable = partitionable;
    this.store = store;
    this.cdiDir = cdiDir;
    this.devRoot = devRoot;
    this.mpsRoot = mpsRoot;
    this.capMinors = capMinors;
    this.timeSlicing = timeSlicing;
    this.checkpoint = store.load();
    recover();
  }

  @Override
  public String driver() {
    return DraNames.DRIVER;
  }

  /** The pool (node) name. */
  @Override
  public String pool() {
    return pool;
  }

  /** Whether MIG placements are published as partitionable devices. */
  public boolean partitionable() {
    return partitionable;
  }

  /**
   * Publishes MIG devices statically from now on (the server does not keep shared counters). MIG
   * devices already created for prepared claims stay until their claims are unprepared.
   */
  public void disablePartitionable() {
    partitionable = false;
  }

  /** The current checkpoint. */
  public synchronized Checkpoint checkpoint() {
    return checkpoint;
  }

  /** What the node offers now, without the unhealthy devices. */
  public synchronized DeviceInventory inventory(Set<String> unhealthy) {
    return DeviceInventoryModel.build(
        NodeGpus.read(backend, roots),
        new DeviceInventoryModel.Options(partitionable, managedMig(), unhealthy));
  }

  /** The completed preparation of a claim, if the checkpoint has one. */
  @Override
  public synchronized List<Checkpoint.PreparedDevice> prepared(String uid) {
    Checkpoint.PreparedClaim c = checkpoint.claims().get(uid);
    return c != null && c.state() == Checkpoint.State.PREPARE_COMPLETED ? c.devices() : null;
  }

  /**
   * Prepares a claim's devices on this node (see the class comment); returns them with their CDI
   * device IDs.
   *
   * @throws IllegalArgumentException for a claim that can never be prepared as it is (bad
   *     configuration, a device this node does not have), naming the cause
   * @throws IOException when a file cannot be written (the kubelet retries)
   */
  @Override
  public synchronized List<Checkpoint.PreparedDevice> prepare(ClaimAllocation claim)
      throws IOException {
    Checkpoint.PreparedClaim existing = checkpoint.claims().get(claim.uid());
    if (existing != null && existing.state() == Checkpoint.State.PREPARE_COMPLETED) {
      return existing.devices();
    }
    DeviceInventory inventory = inventory(Set.of());
    for (ClaimAllocation.Result r : claim.results()) {
      if (inventory.device(r.device()).isEmpty()) {
        throw new IllegalArgumentException(
            "ResourceClaim "
                + claim.ref()
                + ": device "
                + r.device()
                + " (request "
                + r.request()
                + ") is not a device of node "
                + pool
                + " (the GPUs changed since it was allocated?)");
      }
    }
    Map<String, Sharing> sharing =
        ClaimSharing.resolve(claim, n -> inventory.device(n).orElseThrow());
    List<Checkpoint.PreparedDevice> devices = new ArrayList<>();
    for (ClaimAllocation.Result r : claim.results()) {
      DraDevice d = inventory.device(r.device()).orElseThrow();
      Checkpoint.PreparedDevice earlier = earlier(existing, r.device());
      devices.add(
          new Checkpoint.PreparedDevice(
              List.of(r.request()),
              d.name(),
              d.gpuIndex(),
              earlier != null ? earlier.uuid() : d.uuid(),
              d.kind() == DraDevice.Kind.MIG_PLACEMENT ? d.mig() : null,
              earlier != null ? earlier.createdMig() : null,
              sharing.get(d.name()),
              List.of()));
    }
    var record =
        new Checkpoint.PreparedClaim(
            claim.namespace(), claim.name(), Checkpoint.State.PREPARE_STARTED, devices);
    save(checkpoint.with(claim.uid(), record));

    for (int i = 0; i < devices.size(); i++) {
      Checkpoint.PreparedDevice d = devices.get(i);
      if (d.placement() != null && !exists(d)) {
        devices.set(i, createMig(claim, d));
        record = record.withDevices(devices);
        save(checkpoint.with(claim.uid(), record));
      }
    }
    boolean mps = false;
    List<ClaimCdiSpecModel.Entry> entries = new ArrayList<>();
    for (Checkpoint.PreparedDevice d : devices) {
      GpuDevice gpu = backend.device(d.gpuIndex());
      if (d.sharing().strategy() == Sharing.Strategy.TIME_SLICING
          && d.sharing().interval() != null
          && d.placement() == null
          && !isMig(d)) {
        timeSlicing.set(gpu, d.sharing().interval());
      }
      mps |= d.sharing().strategy() == Sharing.Strategy.MPS;
      entries.add(new ClaimCdiSpecModel.Entry(d.device(), d.uuid(), nodes(gpu, d), d.sharing()));
    }
    Path mpsDir = mpsRoot.resolve(claim.uid());
    if (mps) {
      Files.createDirectories(mpsDir.resolve("log"));
    }
    checkConfined(entries);
    AtomicFile.writeJson(
        cdiDir.resolve(ClaimCdiSpecModel.fileName(claim.uid())),
        ClaimCdiSpecModel.build(
            claim.uid(), entries, devRoot, mpsDir, p -> Files.exists(Path.of(p))));
    List<Checkpoint.PreparedDevice> done = new ArrayList<>();
    for (Checkpoint.PreparedDevice d : devices) {
      done.add(d.withCdiDeviceIds(List.of(ClaimCdiSpecModel.deviceId(claim.uid(), d.device()))));
    }
    save(
        checkpoint.with(
            claim.uid(), record.withDevices(done).in(Checkpoint.State.PREPARE_COMPLETED)));
    LOG.info(
        "ResourceClaim {}: prepared {} on node {}",
        claim.ref(),
        done.stream().map(Checkpoint.PreparedDevice::device).toList(),
        pool);
    return done;
  }

  /**
   * Undoes a claim's preparation: its CDI spec, MPS directory and the MIG devices created for it
   * go, the GPUs' time-slices return to the default when no other claim holds them, and the
   * checkpoint forgets it. A claim this node does not know is already unprepared.
   */
  @Override
  public synchronized void unprepare(String uid) throws IOException {
    Checkpoint.PreparedClaim c = checkpoint.claims().get(uid);
    if (c == null) {
      return;
    }
    AtomicFile.delete(cdiDir.resolve(ClaimCdiSpecModel.fileName(uid)));
    deleteTree(mpsRoot.resolve(uid));
    Set<Integer> otherGpus = new HashSet<>();
    checkpoint
        .claims()
        .forEach(
            (other, claim) -> {
              if (!other.equals(uid)) {
                claim.devices().forEach(d -> otherGpus.add(d.gpuIndex()));
              }
            });
    for (Checkpoint.PreparedDevice d : c.devices()) {
      if (d.createdMig() != null) {
        destroyMig(d);
      } else if (d.sharing() != null
          && d.sharing().strategy() == Sharing.Strategy.TIME_SLICING
          && d.sharing().interval() != Sharing.Interval.DEFAULT
          && !isMig(d)
          && !otherGpus.contains(d.gpuIndex())) {
        timeSlicing.set(backend.device(d.gpuIndex()), Sharing.Interval.DEFAULT);
      }
    }
    save(checkpoint.without(uid));
    LOG.info("ResourceClaim {}/{}: unprepared on node {}", c.namespace(), c.name(), pool);
  }

  /**
   * After a restart: a MIG device created for a claim whose preparation did not finish, but not yet
   * recorded (the plugin died between the two), is adopted, so it is neither created twice nor
   * mistaken for someone else's.
   */
  private void recover() throws IOException {
    Checkpoint next = checkpoint;
    for (var e : checkpoint.claims().entrySet()) {
      if (e.getValue().state() != Checkpoint.State.PREPARE_STARTED) {
        continue;
      }
      List<Checkpoint.PreparedDevice> devices = new ArrayList<>(e.getValue().devices());
      for (int i = 0; i < devices.size(); i++) {
        Checkpoint.PreparedDevice d = devices.get(i);
        if (d.placement() != null && d.createdMig() == null) {
          MigDevice found = atPlacement(d);
          if (found != null) {
            LOG.info(
                "ResourceClaim {}/{}: adopting MIG device {} created before the restart",
                e.getValue().namespace(),
                e.getValue().name(),
                found.uuid());
            devices.set(
                i,
                d.created(
                    found.uuid(),
                    new Checkpoint.CreatedMig(found.gpuInstanceId(), found.computeInstanceId())));
          }
        }
      }
      next = next.with(e.getKey(), e.getValue().withDevices(devices));
    }
    if (!next.equals(checkpoint)) {
      save(next);
    }
  }

  private Set<DeviceInventoryModel.MigKey> managedMig() {
    Set<DeviceInventoryModel.MigKey> keys = new HashSet<>();
    for (Checkpoint.PreparedClaim c : checkpoint.claims().values()) {
      for (Checkpoint.PreparedDevice d : c.devices()) {
        if (d.createdMig() != null) {
          keys.add(new DeviceInventoryModel.MigKey(d.gpuIndex(), d.createdMig().gpuInstanceId()));
        }
      }
    }
    return keys;
  }

  private static Checkpoint.PreparedDevice earlier(Checkpoint.PreparedClaim c, String device) {
    if (c == null) {
      return null;
    }
    return c.devices().stream().filter(d -> d.device().equals(device)).findFirst().orElse(null);
  }

  private static boolean isMig(Checkpoint.PreparedDevice d) {
    return d.uuid() != null && d.uuid().startsWith("MIG-");
  }

  /** Whether the MIG device recorded as created still exists. */
  private boolean exists(Checkpoint.PreparedDevice d) {
    if (d.createdMig() == null) {
      return false;
    }
    return backend.migDevices(d.gpuIndex()).stream()
        .anyMatch(m -> m.gpuInstanceId() == d.createdMig().gpuInstanceId());
  }

  private MigDevice atPlacement(Checkpoint.PreparedDevice d) {
    return backend.migDevices(d.gpuIndex()).stream()
        .filter(
            m ->
                m.gpuInstanceProfileId() == d.placement().gpuInstanceProfileId()
                    && m.placement().equals(d.placement().placement()))
        .findFirst()
        .orElse(null);
  }

  /** Creates the GPU instance at the placement and one compute instance spanning it. */
  private Checkpoint.PreparedDevice createMig(ClaimAllocation claim, Checkpoint.PreparedDevice d) {
    DraDevice.MigSlot slot = d.placement();
    GpuInstance gi;
    try {
      gi = backend.createGpuInstance(d.gpuIndex(), slot.gpuInstanceProfileId(), slot.placement());
    } catch (GpuBackendException e) {
      throw new IllegalStateException(
          "ResourceClaim "
              + claim.ref()
              + ": cannot create MIG device "
              + d.device()
              + " ("
              + slot.profile()
              + " at memory slice "
              + slot.placement().start()
              + " of GPU "
              + d.gpuIndex()
              + "): "
              + e.getMessage(),
          e);
    }
    ComputeInstance ci;
    try {
      ComputeInstanceProfile full =
          backend.computeInstanceProfiles(d.gpuIndex(), gi.id()).stream()
              .max(Comparator.comparingInt(ComputeInstanceProfile::sliceCount))
              .orElseThrow(() -> new IllegalStateException("no compute-instance profile"));
      ci = backend.createComputeInstance(d.gpuIndex(), gi.id(), full.id());
    } catch (RuntimeException e) {
      backend.destroyGpuInstance(d.gpuIndex(), gi.id());
      throw new IllegalStateException(
          "ResourceClaim "
              + claim.ref()
              + ": cannot create the compute instance of MIG device "
              + d.device()
              + ": "
              + e.getMessage(),
          e);
    }
    MigDevice mig =
        backend.migDevices(d.gpuIndex()).stream()
            .filter(m -> m.gpuInstanceId() == gi.id() && m.computeInstanceId() == ci.id())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "MIG device " + d.device() + " was created but does not show up"));
    LOG.info(
        "ResourceClaim {}: created MIG device {} ({}) for {}",
        claim.ref(),
        mig.uuid(),
        slot.profile(),
        d.device());
    return d.created(mig.uuid(), new Checkpoint.CreatedMig(gi.id(), ci.id()));
  }

  private void destroyMig(Checkpoint.PreparedDevice d) {
    int gi = d.createdMig().gpuInstanceId();
    try {
      backend.destroyComputeInstance(d.gpuIndex(), gi, d.createdMig().computeInstanceId());
    } catch (GpuBackendException e) {
      LOG.debug("compute instance of {} already gone: {}", d.device(), e.getMessage());
    }
    try {
      backend.destroyGpuInstance(d.gpuIndex(), gi);
      LOG.info("destroyed MIG device {} ({})", d.uuid(), d.device());
    } catch (GpuBackendException e) {
      boolean gone = backend.gpuInstances(d.gpuIndex()).stream().noneMatch(g -> g.id() == gi);
      if (!gone) {
        throw e;
      }
    }
  }

  private List<String> nodes(GpuDevice gpu, Checkpoint.PreparedDevice d) {
    if (!isMig(d)) {
      return DeviceNodes.gpu(gpu);
    }
    MigDevice mig =
        backend.migDevices(d.gpuIndex()).stream()
            .filter(m -> m.uuid().equals(d.uuid()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "MIG device " + d.uuid() + " (" + d.device() + ") no longer exists"));
    return DeviceNodes.mig(gpu, mig, capMinors.get());
  }

  private void save(Checkpoint next) throws IOException {
    store.save(next);
    checkpoint = next;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * Refuses device nodes that a link leads out of the dev root (this process sees it where the host
   * has it), before the claim's spec names them.
   */
  private void checkConfined(List<ClaimCdiSpecModel.Entry> entries) throws IOException {
    String root = devRoot == null ? "/" : devRoot.toString();
    ConfinedRoot confined = new ConfinedRoot("dev root", root, Path.of(root));
    List<String> paths = new ArrayList<>(ClaimCdiSpecModel.CONTROL_DEVICES);
    entries.forEach(e -> paths.addAll(e.deviceNodes()));
    for (String p : paths) {
      confined.check("device node " + p, ClaimCdiSpecModel.hostPath(p, devRoot));
    }
  }
}

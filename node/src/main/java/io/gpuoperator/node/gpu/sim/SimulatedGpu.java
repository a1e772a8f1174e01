package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigAttributes;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The MIG state of one simulated GPU, following the hardware's rules: a GPU instance takes one of
 * its profile's placements, placements may not share memory slices, GPU instances together use at
 * most the GPU's compute slices, each profile has a maximum count, and a mode change waits for a
 * reset. Not thread-safe: {@link SimulatedBackend} serialises calls.
 */
final class SimulatedGpu {
  /** NVML's compute-instance profile index by slice count. */
  private static final Map<Integer, Integer> CI_INDEX_BY_SLICES =
      Map.of(1, 0, 2, 1, 3, 2, 4, 3, 7, 4, 8, 5, 6, 6);

  final HardwareProfile hw;
  final GpuDevice device;
  private final String uuidSeed;
  private boolean migCurrent;
  private boolean migPending;
  private boolean inUse;
  private boolean lost;

  /** {@link io.gpuoperator.node.gpu.ClockEventReasons} bits; 0: clocks running free. */
  long clockEventReasons;

  private int generation;
  private final TreeMap<Integer, Gi> instances = new TreeMap<>();
  final long[] ecc = new long[4]; // corrected vol, uncorrected vol, corrected agg, uncorrected agg

  SimulatedGpu(HardwareProfile hw, GpuDevice device, String uuidSeed) {
    this.hw = hw;
    this.device = device;
    this.uuidSeed = uuidSeed;
  }

  private record Ci(int id, int profileIndex, int slices, String uuid) {}

  private static final class Gi {
    final int id;
    final HardwareProfile.GiProfile profile;
    final Placement placement;
    final TreeMap<Integer, Ci> cis = new TreeMap<>();

    Gi(int id, HardwareProfile.GiProfile profile, Placement placement) {
      this.id = id;
      this.profile = profile;
      this.placement = placement;
    }
  }

  // ---- mode and reset

  MigMode migMode() {
    requireMigCapable();
    return new MigMode(migCurrent, migPending);
  }

  MigMode setMigMode(boolean enabled) {
    requireMigCapable();
    if (!enabled && !instances.isEmpty()) {
      throw new GpuBackendException.InUse(
          "GPU " + device.index() + ": destroy its " + instances.size() + " GPU instances first",
          null);
    }
    migPending = enabled;
    return new MigMode(migCurrent, migPending);
  }

  void reset() {
    if (inUse) {
      throw new GpuBackendException.InUse(
          "GPU " + device.index() + " is in use by processes; cannot reset", null);
    }
    migCurrent = migPending;
    instances.clear();
    ecc[0] = 0;
    ecc[1] = 0;
  }

  void setInUse(boolean inUse) {
    this.inUse = inUse;
  }

  void setLost(boolean lost) {
    this.lost = lost;
  }

  void requireAlive() {
    if (lost) {
      throw new GpuBackendException.GpuIsLost(
          "GPU " + device.index() + " (" + device.pciBusId() + ") has fallen off the bus", null);
    }
  }

  /** Starts in MIG mode without a reset (the node profile's initial layout). */
  void forceMigMode(boolean enabled) {
    requireMigCapable();
    migCurrent = enabled;
    migPending = enabled;
  }

  boolean migEnabled() {
    return hw.migCapable() && migCurrent;
  }

  // ---- GPU instances

  List<GpuInstanceProfile> gpuInstanceProfiles() {
    requireMigEnabled();
    List<GpuInstanceProfile> out = new ArrayList<>();
    for (HardwareProfile.GiProfile p : hw.mig().gpuInstanceProfiles()) {
      out.add(toApi(p));
    }
    out.sort(Comparator.comparingInt(GpuInstanceProfile::index));
    return out;
  }

  private GpuInstanceProfile toApi(HardwareProfile.GiProfile p) {
    return new GpuInstanceProfile(
        p.index(),
        p.id(),
        p.profile(),
        p.profile().gpuSlices(),
        p.instances(),
        p.multiprocessors(),
        p.copyEngines(),
        p.decoders(),
        p.encoders(),
        p.jpeg(),
        p.ofa(),
        p.memoryMB(),
        false);
  }

  List<Placement> possiblePlacements(int profileId) {
    HardwareProfile.GiProfile p = giProfile(profileId);
    return p.placementStarts().stream().map(s -> new Placement(s, p.placementSize())).toList();
  }

  int remainingCapacity(int profileId) {
    HardwareProfile.GiProfile p = giProfile(profileId);
    List<Placement> taken = new ArrayList<>();
    instances.values().forEach(g -> taken.add(g.placement));
    int slices = usedComputeSlices();
    int count = countOf(p);
    int remaining = 0;
    while (true) {
      Placement next = firstFree(p, taken, slices, count + remaining);
      if (next == null) {
        return remaining;
      }
      taken.add(next);
      slices += p.profile().gpuSlices();
      remaining++;
    }
  }

  List<GpuInstance> gpuInstances() {
    requireMigEnabled();
    return instances.values().stream()
        .map(g -> new GpuInstance(device.index(), g.id, g.profile.id(), g.placement))
        .toList();
  }

  GpuInstance createGpuInstance(int profileId, Placement placement) {
    HardwareProfile.GiProfile p = giProfile(profileId);
    List<Placement> taken = instances.values().stream().map(g -> g.placement).toList();
    int used = usedComputeSlices();
    Placement chosen;
    if (placement == null) {
      chosen = firstFree(p, taken, used, countOf(p));
      if (chosen == null) {
        throw new GpuBackendException.InsufficientResources(
            "GPU " + device.index() + ": no room for another " + p.name() + " " + describe(), null);
      }
    } else {
      if (!possiblePlacements(profileId).contains(placement)) {
        throw new GpuBackendException.InvalidArgument(
            "GPU "
                + device.index()
                + ": "
                + placement
                + " is not a placement of "
                + p.name()
                + " (possible: "
                + possiblePlacements(profileId)
                + ")",
            null);
      }
      if (!fits(p, placement, taken, used, countOf(p))) {
        throw new GpuBackendException.InsufficientResources(
            "GPU "
                + device.index()
                + ": "
                + p.name()
                + " does not fit at "
                + placement
                + " "
                + describe(),
            null);
      }
      chosen = placement;
    }
    int id = instanceId(chosen);
    instances.put(id, new Gi(id, p, chosen));
    generation++;
    return new GpuInstance(device.index(), id, p.id(), chosen);
  }

  void destroyGpuInstance(int giId) {
    Gi gi = gi(giId);
    if (!gi.cis.isEmpty()) {
      throw new GpuBackendException.InUse(
          "GPU "
              + device.index()
              + " GPU instance "
              + giId
              + " still has "
              + gi.cis.size()
              + " compute instances",
          null);
    }
    instances.remove(giId);
  }

  // ---- compute instances

  List<ComputeInstanceProfile> computeInstanceProfiles(int giId) {
    Gi gi = gi(giId);
    int g = gi.profile.profile().gpuSlices();
    List<ComputeInstanceProfile> out = new ArrayList<>();
    for (int c : new int[] {1, 2, 3, 4, 7}) {
      if (c <= g) {
        out.add(ciProfile(gi.profile, c));
      }
    }
    return out;
  }

  private static ComputeInstanceProfile ciProfile(HardwareProfile.GiProfile p, int c) {
    int g = p.profile().gpuSlices();
    int index = CI_INDEX_BY_SLICES.get(c);
    int sms = c == g ? p.multiprocessors() : p.multiprocessors() / g * c;
    return new ComputeInstanceProfile(
        index,
        index,
        c,
        g / c,
        sms,
        p.copyEngines(),
        p.decoders(),
        p.encoders(),
        p.jpeg(),
        p.ofa());
  }

  List<ComputeInstance> computeInstances(int giId) {
    Gi gi = gi(giId);
    return gi.cis.values().stream()
        .map(c -> new ComputeInstance(device.index(), giId, c.id, c.profileIndex))
        .toList();
  }

  ComputeInstance createComputeInstance(int giId, int ciProfileId) {
    Gi gi = gi(giId);
    ComputeInstanceProfile profile =
        computeInstanceProfiles(giId).stream()
            .filter(p -> p.id() == ciProfileId)
            .findFirst()
            .orElseThrow(
                () ->
                    new GpuBackendException.NotSupported(
                        "GPU "
                            + device.index()
                            + " GPU instance "
                            + giId
                            + " ("
                            + gi.profile.name()
                            + ") has no compute-instance profile "
                            + ciProfileId,
                        null));
    int used = gi.cis.values().stream().mapToInt(Ci::slices).sum();
    long same = gi.cis.values().stream().filter(c -> c.profileIndex == ciProfileId).count();
    if (used + profile.sliceCount() > gi.profile.profile().gpuSlices()
        || same >= profile.instanceCount()) {
      throw new GpuBackendException.InsufficientResources(
          "GPU "
              + device.index()
              + " GPU instance "
              + giId
              + ": no room for a "
              + profile.sliceCount()
              + "-slice compute instance ("
              + used
              + " of "
              + gi.profile.profile().gpuSlices()
              + " slices used)",
          null);
    }
    int id = 0;
    while (gi.cis.containsKey(id)) {
      id++;
    }
    generation++;
    String uuid =
        "MIG-"
            + UUID.nameUUIDFromBytes(
                (uuidSeed + "/gi" + giId + "/ci" + id + "/gen" + generation)
                    .getBytes(StandardCharsets.UTF_8));
    gi.cis.put(id, new Ci(id, ciProfileId, profile.sliceCount(), uuid));
    return new ComputeInstance(device.index(), giId, id, ciProfileId);
  }

  void destroyComputeInstance(int giId, int ciId) {
    Gi gi = gi(giId);
    if (gi.cis.remove(ciId) == null) {
      throw new GpuBackendException.NotFound(
          "GPU " + device.index() + " GPU instance " + giId + " has no compute instance " + ciId,
          null);
    }
  }

  // ---- MIG devices

  List<MigDevice> migDevices() {
    if (!migEnabled()) {
      return List.of();
    }
    List<MigDevice> out = new ArrayList<>();
    long totalBytes = device.memoryTotalBytes();
    for (Gi gi : instances.values()) {
      MigProfile gp = gi.profile.profile();
      for (Ci ci : gi.cis.values()) {
        ComputeInstanceProfile cp = ciProfile(gi.profile, ci.slices);
        MigProfile profile =
            new MigProfile(
                ci.slices,
                gp.gpuSlices(),
                MigProfile.memoryGb(gi.profile.memoryMB(), totalBytes),
                ci.slices == gp.gpuSlices() ? gp.attributes() : "");
        MigAttributes attrs =
            new MigAttributes(
                cp.multiprocessorCount(),
                gi.profile.copyEngines(),
                gi.profile.decoders(),
                gi.profile.encoders(),
                gi.profile.jpeg(),
                gi.profile.ofa(),
                gp.gpuSlices(),
                ci.slices,
                gi.profile.memoryMB());
        out.add(
            new MigDevice(
                device.index(),
                device.uuid(),
                out.size(),
                ci.uuid,
                gi.id,
                ci.id,
                gi.profile.id(),
                ci.profileIndex,
                profile,
                attrs,
                gi.placement));
      }
    }
    return out;
  }

  // ---- rules

  private Placement firstFree(
      HardwareProfile.GiProfile p, List<Placement> taken, int usedSlices, int count) {
    // The driver fills from the end so that large profiles still find room at slice 0.
    List<Placement> candidates = new ArrayList<>(possiblePlacementsOf(p));
    candidates.sort(Comparator.comparingInt(Placement::start).reversed());
    for (Placement c : candidates) {
      if (fits(p, c, taken, usedSlices, count)) {
        return c;
      }
    }
    return null;
  }

  private boolean fits(
      HardwareProfile.GiProfile p,
      Placement placement,
      List<Placement> taken,
      int usedSlices,
      int count) {
    if (count >= p.instances()) {
      return false;
    }
    if (usedSlices + p.profile().gpuSlices() > hw.mig().computeSlices()) {
      return false;
    }
    return taken.stream().noneMatch(placement::overlaps);
  }

  private static List<Placement> possiblePlacementsOf(HardwareProfile.GiProfile p) {
    return p.placementStarts().stream().map(s -> new Placement(s, p.placementSize())).toList();
  }

  private int usedComputeSlices() {
    return instances.values().stream().mapToInt(g -> g.profile.profile().gpuSlices()).sum();
  }

  private int countOf(HardwareProfile.GiProfile p) {
    return (int) instances.values().stream().filter(g -> g.profile.id() == p.id()).count();
  }

  /** GPU-instance ids follow the placement, as on hardware: 7g is 0, 4-slice runs 1-2, .... */
  private int instanceId(Placement p) {
    int slices = hw.mig().memorySlices();
    if (p.size() >= slices) {
      return 0;
    }
    int base = 1;
    for (int size = slices / 2; size >= 1; size /= 2) {
      if (p.size() >= size) {
        return base + p.start() / size;
      }
      base += slices / size;
    }
    return base + p.start();
  }

  private String describe() {
    return "("
        + usedComputeSlices()
        + " of "
        + hw.mig().computeSlices()
        + " compute slices used; instances: "
        + instances.values().stream().map(g -> g.profile.name() + "@" + g.placement).toList()
        + ")";
  }

  private HardwareProfile.GiProfile giProfile(int profileId) {
    requireMigEnabled();
    return hw.mig().gpuInstanceProfiles().stream()
        .filter(p -> p.id() == profileId)
        .findFirst()
        .orElseThrow(
            () ->
                new GpuBackendException.NotSupported(
                    "GPU "
                        + device.index()
                        + " ("
                        + hw.model()
                        + ") has no GPU-instance profile with id "
                        + profileId,
                    null));
  }

  HardwareProfile.GiProfile giProfileByName(String name) {
    requireMigCapable();
    return hw.mig().gpuInstanceProfiles().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new GpuBackendException.NotSupported(
                    hw.model() + " has no MIG profile " + name, null));
  }

  private Gi gi(int giId) {
    requireMigEnabled();
    Gi gi = instances.get(giId);
    if (gi == null) {
      throw new GpuBackendException.NotFound(
          "GPU " + device.index() + " has no GPU instance " + giId, null);
    }
    return gi;
  }

  private void requireMigCapable() {
    if (!hw.migCapable()) {
      throw new GpuBackendException.NotSupported(
          "GPU " + device.index() + " (" + device.name() + ") is not MIG-capable", null);
    }
  }

  private void requireMigEnabled() {
    requireMigCapable();
    if (!migCurrent) {
      throw new GpuBackendException.NotSupported(
          "GPU " + device.index() + ": MIG mode is not enabled", null);
    }
  }
}

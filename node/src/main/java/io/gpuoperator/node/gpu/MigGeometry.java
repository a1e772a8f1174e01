package io.gpuoperator.node.gpu;

import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The MIG table of one GPU model (its GPU-instance profiles, their maximum counts, compute slices
 * and placements) and the one place that decides whether a set of MIG devices fits on such a GPU:
 * profile names exist, counts stay within each profile's maximum and the compute-slice budget, and
 * a placement exists for the whole set. Built from a hardware profile (offline: {@code mig
 * validate}, the operator, the planner, simulator cluster files) or from what a live GPU reports.
 *
 * @param model the GPU's name in messages, e.g. {@code H100-SXM5-80GB}
 * @param computeSlices compute slices of one GPU (7, or 4 on A30 and RTX PRO 6000)
 * @param profiles the GPU-instance profiles
 */
public record MigGeometry(String model, int computeSlices, List<Profile> profiles) {

  /** Compute-instance slice counts NVML offers inside a GPU instance. */
  private static final Set<Integer> CI_SLICES = Set.of(1, 2, 3, 4, 6, 7, 8);

  public MigGeometry {
    profiles = List.copyOf(profiles);
  }

  /**
   * A GPU-instance profile of the model.
   *
   * @param profile its name parts (C == G)
   * @param id the NVML profile id create calls take
   * @param maxInstances most instances on one GPU
   * @param placements where an instance can sit
   */
  public record Profile(MigProfile profile, int id, int maxInstances, List<Placement> placements) {
    public Profile {
      placements = List.copyOf(placements);
    }

    public String name() {
      return profile.name();
    }

    int slices() {
      return profile.gpuSlices();
    }
  }

  /**
   * One MIG device of a request, placed: a GPU instance of {@code profile} at {@code placement},
   * holding one compute instance of {@code computeSlices}.
   */
  public record Slot(Profile profile, Placement placement, int computeSlices) {
    /** The MIG device's name, e.g. {@code 1g.10gb} or {@code 1c.3g.40gb}. */
    public String deviceName() {
      MigProfile gi = profile.profile();
      return new MigProfile(computeSlices, gi.gpuSlices(), gi.memoryGb(), gi.attributes()).name();
    }
  }

  /** The outcome of {@link #check}: the placed slots, or why the request does not fit. */
  public record Fit(List<Slot> slots, String problem) {
    public boolean fits() {
      return problem == null;
    }
  }

  /** The geometry of a hardware profile; empty when the model is not MIG-capable. */
  public static Optional<MigGeometry> of(HardwareProfile hw) {
    if (!hw.migCapable()) {
      return Optional.empty();
    }
    List<Profile> out = new ArrayList<>();
    for (HardwareProfile.GiProfile p : hw.mig().gpuInstanceProfiles()) {
      List<Placement> placements =
          p.placementStarts().stream().map(s -> new Placement(s, p.placementSize())).toList();
      out.add(new Profile(p.profile(), p.id(), p.instances(), placements));
    }
    return Optional.of(new MigGeometry(hw.model(), hw.mig().computeSlices(), out));
  }

  /** The geometry a live GPU reports (its MIG mode must be on, as NVML requires). */
  public static MigGeometry of(GpuBackend backend, int gpu) {
    List<Profile> out = new ArrayList<>();
    int slices = 0;
    for (GpuInstanceProfile p : backend.gpuInstanceProfiles(gpu)) {
      out.add(
          new Profile(
              p.profile(),
              p.id(),
              p.instanceCount(),
              backend.gpuInstancePossiblePlacements(gpu, p.id())));
      slices = Math.max(slices, p.sliceCount());
    }
    String name = backend.device(gpu).name();
    return new MigGeometry(name, slices, out);
  }

  /** The GPU-instance profile with this name ({@code 1g.10gb}, {@code 1g.10gb+me}), if any. */
  public Optional<Profile> profile(String name) {
    return profiles.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** Profile names, in table order. */
  public List<String> profileNames() {
    return profiles.stream().map(Profile::name).toList();
  }

  /**
   * Whether the MIG devices (name → count, the {@code mig-devices} of mig-parted's format; {@code
   * <C>c.<G>g.<GB>gb} names a compute instance of C slices in its own GPU instance) fit on one GPU,
   * and where each goes, in placement order. The problem names the devices, the GPU and why, e.g.
   * {@code 3g.40gb ×3 needs 9 of 7 compute slices on H100-SXM5-80GB}.
   */
  public Fit check(Map<String, Integer> devices) {
    Map<Profile, Integer> counts = new LinkedHashMap<>();
    Map<Profile, List<Integer>> computeSlicesOf = new LinkedHashMap<>();
    for (Map.Entry<String, Integer> e : devices.entrySet()) {
      int count = e.getValue() == null ? 0 : e.getValue();
      if (count < 0) {
        return problem(e.getKey() + ": count must be >= 0, got " + count);
      }
      MigProfile requested;
      try {
        requested = MigProfile.parse(e.getKey());
      } catch (IllegalArgumentException ex) {
        return problem(ex.getMessage());
      }
      String giName =
          new MigProfile(
                  requested.gpuSlices(),
                  requested.gpuSlices(),
                  requested.memoryGb(),
                  requested.attributes())
              .name();
      Optional<Profile> p = profile(giName);
      if (p.isEmpty()) {
        return problem(
            model
                + " has no MIG profile "
                + giName
                + " (its profiles: "
                + String.join(", ", profileNames())
                + ")");
      }
      if (!CI_SLICES.contains(requested.computeSlices())) {
        return problem(
            e.getKey()
                + ": a GPU instance has no "
                + requested.computeSlices()
                + "-slice compute instance");
      }
      if (count == 0) {
        continue;
      }
      counts.merge(p.get(), count, Integer::sum);
      for (int i = 0; i < count; i++) {
        computeSlicesOf
            .computeIfAbsent(p.get(), k -> new ArrayList<>())
            .add(requested.computeSlices());
      }
    }
    for (Map.Entry<Profile, Integer> e : counts.entrySet()) {
      if (e.getValue() > e.getKey().maxInstances()) {
        return problem(
            e.getKey().name()
                + " ×"
                + e.getValue()
                + " exceeds its maximum of "
                + e.getKey().maxInstances()
                + " per GPU on "
                + model);
      }
    }
    int slices = counts.entrySet().stream().mapToInt(e -> e.getKey().slices() * e.getValue()).sum();
    if (slices > computeSlices) {
      return problem(
          describe(counts)
              + (counts.size() == 1 ? " needs " : " need ")
              + slices
              + " of "
              + computeSlices
              + " compute slices on "
              + model);
    }
    List<Profile> instances = new ArrayList<>();
    counts.forEach(
        (p, n) -> {
          for (int i = 0; i < n; i++) {
            instances.add(p);
          }
        });
    // Largest first: the fewest branches; same profile in rising start order (no permutations).
    instances.sort(
        Comparator.comparingInt((Profile p) -> -p.placements().get(0).size())
            .thenComparing(Profile::name));
    Placement[] chosen = new Placement[instances.size()];
    if (!place(instances, 0, chosen)) {
      return problem(
          describe(counts)
              + (counts.size() == 1 ? " fits" : " fit")
              + " the compute slices but no placement holds them together on "
              + model
              + " ("
              + counts.keySet().stream()
                  .map(
                      p ->
                          p.name()
                              + " at "
                              + p.placements().stream()
                                  .map(Placement::toString)
                                  .collect(Collectors.joining(",")))
                  .collect(Collectors.joining("; "))
              + ")");
    }
    List<Slot> slots = new ArrayList<>();
    Map<Profile, Integer> used = new LinkedHashMap<>();
    for (int i = 0; i < instances.size(); i++) {
      Profile p = instances.get(i);
      int k = used.merge(p, 1, Integer::sum) - 1;
      slots.add(new Slot(p, chosen[i], computeSlicesOf.get(p).get(k)));
    }
    slots.sort(Comparator.comparingInt((Slot s) -> s.placement().start()));
    return new Fit(List.copyOf(slots), null);
  }

  private static boolean place(List<Profile> instances, int i, Placement[] chosen) {
    if (i == instances.size()) {
      return true;
    }
    Profile p = instances.get(i);
    int minStart = i > 0 && instances.get(i - 1) == p ? chosen[i - 1].start() + 1 : 0;
    for (Placement candidate : p.placements()) {
      if (candidate.start() < minStart) {
        continue;
      }
      boolean free = true;
      for (int j = 0; j < i && free; j++) {
        free = !chosen[j].overlaps(candidate);
      }
      if (free) {
        chosen[i] = candidate;
        if (place(instances, i + 1, chosen)) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code 1g.10gb ×2 + 3g.40gb ×1}, in the order given. */
  static String describe(Map<Profile, Integer> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getKey().name() + " ×" + e.getValue())
        .collect(Collectors.joining(" + "));
  }

  private static Fit problem(String message) {
    return new Fit(List.of(), message);
  }
}

package io.gpuoperator.node.mig;

import io.gpuoperator.node.gpu.MigGeometry;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Proposes MIG layouts that satisfy a demand (profile → number of MIG devices) on the GPUs of a
 * cluster, touching as few GPUs as it can: GPUs whose current layout already provides demanded
 * devices keep it; then, greedily, the GPU and layout that cover the most remaining demand
 * (weighted by compute slices) are chosen until the demand is met or no GPU helps any more. What
 * cannot be met is said per profile, with the reason.
 */
public final class MigPlanner {
  private static final Map<String, List<Map<String, Integer>>> LAYOUTS = new ConcurrentHashMap<>();
  private static final Map<String, MigGeometry> GEOMETRIES = new ConcurrentHashMap<>();

  private MigPlanner() {}

  /**
   * One MIG-capable GPU of the cluster.
   *
   * @param node its node
   * @param index its index on the node
   * @param model its MIG table
   * @param current its MIG devices now (empty: MIG off or no devices)
   */
  public record Gpu(String node, int index, HardwareProfile model, Map<String, Integer> current) {}

  /**
   * A GPU's new layout.
   *
   * @param gpu the GPU
   * @param layout profile → count
   */
  public record Change(Gpu gpu, Map<String, Integer> layout) {}

  /**
   * The proposal.
   *
   * @param changes the GPUs to change, in node and index order
   * @param kept GPUs whose current layout is used as it is
   * @param unmet profile → devices that could not be placed
   * @param reasons profile → why not
   */
  public record Plan(
      List<Change> changes,
      List<Gpu> kept,
      Map<String, Integer> unmet,
      Map<String, String> reasons) {
    public boolean satisfied() {
      return unmet.isEmpty();
    }
  }

  /** Parses {@code 1g.10gb=20,3g.40gb=4}; an IllegalArgumentException names the bad part. */
  public static Map<String, Integer> parseDemand(String text) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            "--demand: '" + p + "' is not <profile>=<count>, e.g. 1g.10gb=20");
      }
      String name;
      try {
        name = MigProfile.parse(p.substring(0, eq).trim()).name();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--demand: " + e.getMessage(), e);
      }
      int count;
      try {
        count = Integer.parseInt(p.substring(eq + 1).trim());
      } catch (NumberFormatException e) {
        count = -1;
      }
      if (count < 1) {
        throw new IllegalArgumentException(
            "--demand: " + name + ": expected a count >= 1, got '" + p.substring(eq + 1) + "'");
      }
      out.merge(name, count, Integer::sum);
    }
    return out;
  }

  /** Plans the demand on these GPUs. */
  public static Plan plan(List<Gpu> gpus, Map<String, Integer> demand) {
    Map<String, Integer> remaining = new LinkedHashMap<>(demand);
    List<Gpu> kept = new ArrayList<>();
    List<Gpu> candidates = new ArrayList<>();
    for (Gpu g : gpus) {
      if (gain(g.current(), remaining, g.model()) > 0) {
        kept.add(g);
        subtract(remaining, g.current());
      } else {
        candidates.add(g);
      }
    }
    List<Change> changes = new ArrayList<>();
    while (remaining.values().stream().anyMatch(n -> n > 0) && !candidates.isEmpty()) {
      Gpu bestGpu = null;
      Map<String, Integer> best = null;
      int bestGain = 0;
      int bestSlices = Integer.MAX_VALUE;
      for (Gpu g : candidates) {
        for (Map<String, Integer> layout : layouts(g.model())) {
          int gain = gain(layout, remaining, g.model());
          int slices = slices(layout, g.model());
          if (gain > bestGain || (gain == bestGain && gain > 0 && slices < bestSlices)) {
            bestGpu = g;
            best = layout;
            bestGain = gain;
            bestSlices = slices;
          }
        }
      }
      if (bestGpu == null) {
        break;
      }
      // Only what is demanded: the rest of the GPU stays free for later changes.
      Map<String, Integer> used = new TreeMap<>();
      for (Map.Entry<String, Integer> e : best.entrySet()) {
        int n = Math.min(e.getValue(), remaining.getOrDefault(e.getKey(), 0));
        if (n > 0) {
          used.put(e.getKey(), n);
        }
      }
      changes.add(new Change(bestGpu, used));
      subtract(remaining, used);
      candidates.remove(bestGpu);
    }
    changes.sort(
        Comparator.comparing((Change c) -> c.gpu().node()).thenComparingInt(c -> c.gpu().index()));
    Map<String, Integer> unmet = new LinkedHashMap<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    remaining.forEach(
        (profile, n) -> {
          if (n > 0) {
            unmet.put(profile, n);
            reasons.put(profile, reason(profile, n, demand.get(profile), gpus));
          }
        });
    return new Plan(List.copyOf(changes), List.copyOf(kept), unmet, reasons);
  }

  private static String reason(String profile, int missing, int asked, List<Gpu> gpus) {
    Set<String> models = new LinkedHashSet<>();
    int having = 0;
    for (Gpu g : gpus) {
      if (geometry(g.model()).profile(profile).isPresent()) {
        models.add(g.model().model());
        having++;
      }
    }
    if (having == 0) {
      Set<String> all = new LinkedHashSet<>();
      gpus.forEach(g -> all.add(g.model().model()));
      return "no GPU of the cluster has the profile "
          + profile
          + (all.isEmpty() ? " (no MIG-capable GPUs)" : " (GPUs: " + String.join(", ", all) + ")");
    }
    return (asked - missing)
        + " of "
        + asked
        + " placed; the other "
        + missing
        + " need more GPUs: all "
        + having
        + " GPU(s) with "
        + profile
        + " ("
        + String.join(", ", models)
        + ") are used";
  }

  private static int gain(
      Map<String, Integer> layout, Map<String, Integer> remaining, HardwareProfile hw) {
    MigGeometry g = geometry(hw);
    int gain = 0;
    for (Map.Entry<String, Integer> e : layout.entrySet()) {
      int n = Math.min(e.getValue(), remaining.getOrDefault(e.getKey(), 0));
      gain += n * g.profile(e.getKey()).map(p -> p.profile().gpuSlices()).orElse(1);
    }
    return gain;
  }

  private static int slices(Map<String, Integer> layout, HardwareProfile hw) {
    MigGeometry g = geometry(hw);
    return layout.entrySet().stream()
        .mapToInt(e -> e.getValue() * g.profile(e.getKey()).orElseThrow().profile().gpuSlices())
        .sum();
  }

  private static void subtract(Map<String, Integer> remaining, Map<String, Integer> layout) {
    layout.forEach((p, n) -> remaining.computeIfPresent(p, (k, v) -> Math.max(0, v - n)));
  }

  /** Every layout that fits one GPU of the model (non-empty, fits the table), cached. */
  static List<Map<String, Integer>> layouts(HardwareProfile hw) {
    return LAYOUTS.computeIfAbsent(
        hw.model(),
        k -> {
          MigGeometry g = geometry(hw);
          List<Map<String, Integer>> out = new ArrayList<>();
          enumerate(g, 0, new TreeMap<>(), 0, out);
          return List.copyOf(out);
        });
  }

  private static void enumerate(
      MigGeometry g,
      int i,
      TreeMap<String, Integer> layout,
      int slices,
      List<Map<String, Integer>> out) {
    if (i == g.profiles().size()) {
      if (!layout.isEmpty() && g.check(layout).fits()) {
        out.add(Map.copyOf(layout));
      }
      return;
    }
    MigGeometry.Profile p = g.profiles().get(i);
    for (int n = 0; n <= p.maxInstances(); n++) {
      int s = slices + n * p.profile().gpuSlices();
      if (s > g.computeSlices()) {
        break;
      }
      if (n > 0) {
        layout.put(p.name(), n);
      }
      enumerate(g, i + 1, layout, s, out);
    }
    layout.remove(p.name());
  }

  private static MigGeometry geometry(HardwareProfile hw) {
    return GEOMETRIES.computeIfAbsent(hw.model(), k -> MigGeometry.of(hw).orElseThrow());
  }

  /** {@code 1g.10gb ×2 + 3g.40gb ×1}. */
  public static String describe(Map<String, Integer> layout) {
    return layout.entrySet().stream()
        .map(e -> e.getKey() + " ×" + e.getValue())
        .collect(Collectors.joining(" + "));
  }
}

package io.gpuoperator.node.deviceplugin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Answers GetPreferredAllocation. Whole GPUs: the set with the best total pairwise link score
 * (NVLink, then PCIe distance and NUMA node), found exhaustively while that is cheap and greedily
 * beyond. Replicas: distributed (least used GPUs first) or packed (most used first). MIG devices:
 * in advertised order. Required devices are always kept.
 */
public final class PreferredAllocator {
  /** Above this many candidate sets the search turns greedy, to answer in milliseconds. */
  static final long EXHAUSTIVE_LIMIT = 20_000;

  private final ResourceSet resource;
  private final Map<String, PluginDevice> known;
  private final LinkScores links;
  private final AllocationPolicy policy;

  public PreferredAllocator(ResourceSet resource, LinkScores links, AllocationPolicy policy) {
    this.resource = resource;
    this.known = resource.byId();
    this.links = links;
    this.policy = policy;
  }

  /** The preferred IDs: {@code size} of them when possible, must-include first. */
  public List<String> preferred(List<String> available, List<String> mustInclude, int size) {
    Set<String> must = new LinkedHashSet<>();
    for (String id : mustInclude) {
      if (known.containsKey(id)) {
        must.add(id);
      }
    }
    List<String> pool = new ArrayList<>();
    for (String id : new LinkedHashSet<>(available)) {
      if (known.containsKey(id) && !must.contains(id)) {
        pool.add(id);
      }
    }
    int needed = size - must.size();
    if (needed <= 0) {
      return new ArrayList<>(must).subList(0, Math.max(0, size));
    }
    if (pool.size() <= needed) {
      List<String> all = new ArrayList<>(must);
      all.addAll(pool);
      return all;
    }
    List<String> chosen;
    if (resource.shared()) {
      chosen = replicas(pool, new ArrayList<>(must), needed, available);
    } else if (known.get(pool.get(0)).mig()) {
      chosen = new ArrayList<>(must);
      chosen.addAll(pool.subList(0, needed));
    } else {
      chosen = aligned(pool, new ArrayList<>(must), needed);
    }
    return chosen;
  }

  private List<String> aligned(List<String> pool, List<String> must, int needed) {
    pool.sort(Comparator.comparingInt(id -> known.get(id).gpuIndex()));
    int[] mustGpus = must.stream().mapToInt(id -> known.get(id).gpuIndex()).toArray();
    int[] poolGpus = pool.stream().mapToInt(id -> known.get(id).gpuIndex()).toArray();
    int[] best;
    if (binomial(pool.size(), needed) <= EXHAUSTIVE_LIMIT) {
      best = exhaustive(poolGpus, mustGpus, needed);
    } else {
      best = greedy(poolGpus, mustGpus, needed);
    }
    List<String> out = new ArrayList<>(must);
    for (int i : best) {
      out.add(pool.get(i));
    }
    return out;
  }

  private int[] exhaustive(int[] pool, int[] must, int k) {
    int[] combo = new int[k];
    for (int i = 0; i < k; i++) {
      combo[i] = i;
    }
    int[] best = combo.clone();
    long bestScore = Long.MIN_VALUE;
    while (true) {
      long s = score(pool, must, combo);
      if (s > bestScore) {
        bestScore = s;
        best = combo.clone();
      }
      int i = k - 1;
      while (i >= 0 && combo[i] == pool.length - k + i) {
        i--;
      }
      if (i < 0) {
        return best;
      }
      combo[i]++;
      for (int j = i + 1; j < k; j++) {
        combo[j] = combo[j - 1] + 1;
      }
    }
  }

  private long score(int[] pool, int[] must, int[] combo) {
    long s = 0;
    for (int a = 0; a < combo.length; a++) {
      int ga = pool[combo[a]];
      for (int b = a + 1; b < combo.length; b++) {
        s += links.score(ga, pool[combo[b]]);
      }
      for (int m : must) {
        s += links.score(ga, m);
      }
    }
    return s;
  }

  private int[] greedy(int[] pool, int[] must, int k) {
    List<Integer> chosen = new ArrayList<>();
    boolean[] used = new boolean[pool.length];
    for (int step = 0; step < k; step++) {
      int bestIndex = -1;
      long bestScore = Long.MIN_VALUE;
      for (int i = 0; i < pool.length; i++) {
        if (used[i]) {
          continue;
        }
        long s = 0;
        for (int m : must) {
          s += links.score(pool[i], m);
        }
        for (int c : chosen) {
          s += links.score(pool[i], pool[c]);
        }
        if (chosen.isEmpty() && must.length == 0) {
          // Seed with the GPU that has the best links overall.
          for (int j = 0; j < pool.length; j++) {
            s += links.score(pool[i], pool[j]);
          }
        }
        if (s > bestScore) {
          bestScore = s;
          bestIndex = i;
        }
      }
      used[bestIndex] = true;
      chosen.add(bestIndex);
    }
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  private List<String> replicas(
      List<String> pool, List<String> chosen, int needed, List<String> available) {
    // How many replicas of each device are in use: those of the resource not offered as available.
    Map<String, Integer> free = new HashMap<>();
    for (String id : new LinkedHashSet<>(available)) {
      PluginDevice d = known.get(id);
      if (d != null) {
        free.merge(d.uuid(), 1, Integer::sum);
      }
    }
    Map<String, Integer> used = new HashMap<>();
    Map<String, List<String>> byDevice = new LinkedHashMap<>();
    for (String id : pool) {
      PluginDevice d = known.get(id);
      byDevice.computeIfAbsent(d.uuid(), u -> new ArrayList<>()).add(id);
      used.put(d.uuid(), resource.replicas() - free.getOrDefault(d.uuid(), 0));
    }
    for (String id : chosen) {
      used.merge(known.get(id).uuid(), 1, Integer::sum);
    }
    List<String> out = new ArrayList<>(chosen);
    for (int step = 0; step < needed; step++) {
      String bestDevice = null;
      for (Map.Entry<String, List<String>> e : byDevice.entrySet()) {
        if (e.getValue().isEmpty()) {
          continue;
        }
        if (bestDevice == null || better(used.get(e.getKey()), used.get(bestDevice))) {
          bestDevice = e.getKey();
        }
      }
      String id = byDevice.get(bestDevice).remove(0);
      used.merge(bestDevice, 1, Integer::sum);
      out.add(id);
    }
    return out;
  }

  private boolean better(int usedCandidate, int usedBest) {
    return policy == AllocationPolicy.DISTRIBUTED
        ? usedCandidate < usedBest
        : usedCandidate > usedBest;
  }

  private static long binomial(int n, int k) {
    long r = 1;
    for (int i = 1; i <= k; i++) {
      r = r * (n - k + i) / i;
      if (r > EXHAUSTIVE_LIMIT) {
        return r;
      }
    }
    return r;
  }
}

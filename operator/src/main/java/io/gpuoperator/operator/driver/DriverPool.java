package io.gpuoperator.operator.driver;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.operator.cluster.NodeSystem;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A driver node pool: the GPU nodes that run the same driver image, those of one OS, and of one
 * kernel too when the driver is precompiled (the image is built per kernel). Pure.
 *
 * @param osTag the OS tag (ubuntu22.04, rhel9), null for nodes without NFD os_release labels
 * @param kernel the kernel (precompiled pools only), else null
 * @param nodes the pool's node names, sorted
 */
public record DriverPool(String osTag, String kernel, List<String> nodes) {
  /** Pools by OS tag, then kernel; unknown parts first. */
  private static final Comparator<DriverPool> ORDER =
      Comparator.comparing(
              DriverPool::osTag, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
          .thenComparing(DriverPool::kernel, Comparator.nullsFirst(Comparator.naturalOrder()));

  public DriverPool {
    nodes = List.copyOf(nodes);
  }

  /** The pools of these GPU nodes: per OS, and per OS and kernel when precompiled. */
  public static List<DriverPool> of(Collection<Node> gpuNodes, boolean precompiled) {
    Map<List<String>, List<String>> byKey = new TreeMap<>(DriverPool::compareKeys);
    for (Node node : gpuNodes) {
      NodeSystem s = NodeSystem.of(node);
      List<String> key = new ArrayList<>();
      key.add(s.osTag());
      key.add(precompiled ? s.kernel() : null);
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(node.getMetadata().getName());
    }
    List<DriverPool> out = new ArrayList<>();
    byKey.forEach((k, names) -> out.add(new DriverPool(k.get(0), k.get(1), sorted(names))));
    out.sort(ORDER);
    return out;
  }

  /** e.g. ubuntu22.04, or ubuntu22.04/5.15.0-105-generic; "unknown" for an unknown OS. */
  public String name() {
    String os = osTag == null ? "unknown" : osTag;
    return kernel == null ? os : os + "/" + kernel;
  }

  private static int compareKeys(List<String> a, List<String> b) {
    for (int i = 0; i < a.size(); i++) {
      int c =
          Objects.compare(
              a.get(i), b.get(i), Comparator.nullsFirst(Comparator.<String>naturalOrder()));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static List<String> sorted(List<String> names) {
    List<String> out = new ArrayList<>(names);
    out.sort(null);
    return out;
  }
}

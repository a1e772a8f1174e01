package io.gpuoperator.operator.driver;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which NVIDIADriver runs on which GPU node, as the original assigns them: a node matched by the
 * nodeSelector of exactly one non-default NVIDIADriver belongs to it; a node matched by none
 * belongs to the default NVIDIADriver (when there is exactly one); a node matched by two or more is
 * a conflict and keeps the owner it has (nothing about it changes until the selectors are fixed).
 * The owner is kept in the node label {@link #OWNER}, which each driver's DaemonSets select on.
 * Pure.
 *
 * @param owners the owner each GPU node should carry (nodes left alone are absent)
 * @param conflicts nodes matched by several drivers, with those drivers' names
 * @param errors problems of a driver itself, by driver name (e.g. two defaults)
 */
public record DriverOwners(
    Map<String, String> owners, Map<String, List<String>> conflicts, Map<String, String> errors) {

  /** Node label: the NVIDIADriver that runs on the node (the original's key). */
  public static final String OWNER = "nvidia.com/gpu-operator.driver.owner";

  /**
   * The drivers as an informer caches them, with {@code current} (the one being reconciled, as its
   * reconcile got it) in place of its cached copy, or added when the cache has not heard of it yet:
   * a reconcile starts from the controller's own informer, and another informer of the same kind
   * may lag behind it. Without this, a just-created driver's first pass assigned it no node and
   * reported ready with NoGPUNodes (NvidiaDriverIT, on a loaded machine).
   */
  public static List<NVIDIADriver> withCurrent(
      Collection<NVIDIADriver> cached, NVIDIADriver current) {
    String uid = current.getMetadata().getUid();
    List<NVIDIADriver> out = new ArrayList<>();
    for (NVIDIADriver d : cached) {
      if (uid == null || !uid.equals(d.getMetadata().getUid())) {
        out.add(d);
      }
    }
    out.add(current);
    return out;
  }

  /** The assignment for these drivers (those being deleted do not count) and GPU nodes. */
  public static DriverOwners assign(Collection<NVIDIADriver> drivers, Collection<Node> gpuNodes) {
    List<NVIDIADriver> live =
        drivers.stream()
            .filter(d -> d.getMetadata().getDeletionTimestamp() == null)
            .sorted(Comparator.comparing(d -> d.getMetadata().getName()))
            .toList();
    List<NVIDIADriver> defaults = live.stream().filter(DriverOwners::isDefault).toList();
    Map<String, String> errors = new TreeMap<>();
    if (defaults.size() > 1) {
      String names =
          String.join(", ", defaults.stream().map(d -> d.getMetadata().getName()).toList());
      for (NVIDIADriver d : defaults) {
        errors.put(
            d.getMetadata().getName(),
            "more than one default NVIDIADriver (" + names + "): none is used as the default");
      }
    }
    NVIDIADriver fallback = defaults.size() == 1 ? defaults.get(0) : null;
    Map<String, String> owners = new TreeMap<>();
    Map<String, List<String>> conflicts = new TreeMap<>();
    for (Node node : gpuNodes) {
      String name = node.getMetadata().getName();
      List<String> matching = new ArrayList<>();
      for (NVIDIADriver d : live) {
        if (!isDefault(d) && selects(d, node)) {
          matching.add(d.getMetadata().getName());
        }
      }
      if (matching.size() > 1) {
        conflicts.put(name, List.copyOf(matching));
      } else if (matching.size() == 1) {
        owners.put(name, matching.get(0));
      } else if (fallback != null) {
        owners.put(name, fallback.getMetadata().getName());
      }
    }
    return new DriverOwners(owners, conflicts, errors);
  }

  /**
   * The conflicts a driver is part of, as a message naming the nodes and the other drivers; null
   * when it has none.
   */
  public String conflictOf(String driver) {
    Map<String, List<String>> mine = new LinkedHashMap<>();
    conflicts.forEach(
        (node, names) -> {
          if (names.contains(driver)) {
            mine.put(node, names);
          }
        });
    if (mine.isEmpty()) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    mine.forEach((node, names) -> parts.add(node + " (" + String.join(", ", names) + ")"));
    return "nodes selected by more than one NVIDIADriver, left as they are: "
        + String.join("; ", parts);
  }

  private static boolean isDefault(NVIDIADriver d) {
    return d.getSpec() != null && Boolean.TRUE.equals(d.getSpec().defaultDriver);
  }

  /**
   * A non-default driver selects the nodes whose labels include its nodeSelector (all if empty).
   */
  static boolean selects(NVIDIADriver d, Node node) {
    Map<String, String> selector = d.getSpec() == null ? null : d.getSpec().nodeSelector;
    Map<String, String> labels = node.getMetadata().getLabels();
    if (selector == null || selector.isEmpty()) {
      return true;
    }
    return labels != null
        && selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }
}

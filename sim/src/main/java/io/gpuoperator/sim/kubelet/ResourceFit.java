package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kubelet's admission check for extended resources (e.g. {@code nvidia.com/gpu}): a pod bound
 * to the node, even without the scheduler, is refused with {@code OutOf<resource>} when the node's
 * allocatable minus what its other pods use cannot hold the request. No I/O.
 */
public final class ResourceFit {
  private ResourceFit() {}

  /** Extended resources: domain-qualified names outside kubernetes.io (nvidia.com/gpu ...). */
  static boolean isExtended(String name) {
    int slash = name.indexOf('/');
    if (slash < 0) {
      return false;
    }
    String domain = name.substring(0, slash);
    return !domain.equals("kubernetes.io")
        && !domain.endsWith(".kubernetes.io")
        && !name.startsWith("requests.");
  }

  /**
   * The pod's effective extended-resource requests: max over init containers, sum over containers.
   */
  public static Map<String, BigDecimal> requests(Pod pod) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Container c : pod.getSpec().getContainers()) {
      requestsOf(pod, c).forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
    }
    if (pod.getSpec().getInitContainers() != null) {
      for (Container c : pod.getSpec().getInitContainers()) {
        requestsOf(pod, c).forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
      }
    }
    return sum;
  }

  /** A container's extended resources, without those the scheduler served through DRA. */
  private static Map<String, BigDecimal> requestsOf(Pod pod, Container c) {
    Map<String, BigDecimal> out = requestsOf(c);
    out.keySet().removeIf(r -> DraExtendedResources.backedByDra(pod, c.getName(), r));
    return out;
  }

  private static Map<String, BigDecimal> requestsOf(Container c) {
    Map<String, BigDecimal> out = new TreeMap<>();
    if (c.getResources() == null) {
      return out;
    }
    // Extended resources are given as limits; requests default to limits.
    Map<String, Quantity> limits = c.getResources().getLimits();
    Map<String, Quantity> requests = c.getResources().getRequests();
    if (limits != null) {
      limits.forEach((k, v) -> add(out, k, v));
    }
    if (requests != null) {
      requests.forEach((k, v) -> add(out, k, v));
    }
    return out;
  }

  private static void add(Map<String, BigDecimal> out, String name, Quantity q) {
    if (isExtended(name)) {
      out.put(name, Quantity.getAmountInBytes(q));
    }
  }

  /**
   * Null when the pod fits; otherwise the kubelet's refusal, e.g. reason {@code
   * OutOfnvidia.com/gpu}, message {@code Node didn't have enough resource: nvidia.com/gpu,
   * requested: 1, used: 0, capacity: 0}.
   */
  public static PodAdmitHandler.Refusal check(
      Pod pod, Map<String, Quantity> allocatable, Collection<Pod> others) {
    Map<String, BigDecimal> want = requests(pod);
    for (Map.Entry<String, BigDecimal> e : want.entrySet()) {
      String name = e.getKey();
      BigDecimal capacity =
          allocatable == null || allocatable.get(name) == null
              ? BigDecimal.ZERO
              : Quantity.getAmountInBytes(allocatable.get(name));
      BigDecimal used = BigDecimal.ZERO;
      for (Pod o : others) {
        used = used.add(requests(o).getOrDefault(name, BigDecimal.ZERO));
      }
      if (used.add(e.getValue()).compareTo(capacity) > 0) {
        return new PodAdmitHandler.Refusal(
            "OutOf" + name,
            "Node didn't have enough resource: "
                + name
                + ", requested: "
                + e.getValue().toPlainString()
                + ", used: "
                + used.toPlainString()
                + ", capacity: "
                + capacity.toPlainString());
      }
    }
    return null;
  }
}

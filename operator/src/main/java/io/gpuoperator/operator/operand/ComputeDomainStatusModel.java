package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus.Readiness;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A ComputeDomain's status from its IMEX daemon pods, by NVIDIA's rules: one node per scheduled
 * daemon pod with an IP, Ready when the pod is; the domain Ready when at least {@code numNodes}
 * nodes joined and every joined node is Ready. A node keeps its index within its clique while it
 * stays (the index names its daemon to its peers); a new node gets the lowest free one.
 *
 * <p>NVIDIA's daemon (run with {@link ComputeDomainModel#FEATURE_GATES}) writes its own node's
 * entry: an entry whose {@code ipAddress} is its node's daemon pod's is that daemon's, and its
 * {@code cliqueID} and {@code index} are kept as written (the daemon's IMEX peers are named by
 * them), as NVIDIA's controller keeps them; an entry whose pod is gone is dropped. The entry's
 * {@code status} is the pod's Ready condition, which is also what NVIDIA's daemon writes there (it
 * watches its own pod), so the two never disagree; {@code status.status} is the controller's alone.
 * For a pod whose daemon wrote no entry yet (or a daemon that writes none, as in the simulator) the
 * controller fills it in from the pod and the node's clique label.
 */
public final class ComputeDomainStatusModel {
  private ComputeDomainStatusModel() {}

  /**
   * @param pods the domain's daemon pods
   * @param cliques each node's {@value ComputeDomainModel#CLIQUE_LABEL} label (absent: no fabric)
   */
  public static ComputeDomainStatus of(
      ComputeDomain cd, List<Pod> pods, Map<String, String> cliques) {
    Map<String, ComputeDomainStatus.Node> before = new HashMap<>();
    if (cd.getStatus() != null && cd.getStatus().nodes != null) {
      cd.getStatus().nodes.forEach(n -> before.put(n.name, n));
    }
    List<ComputeDomainStatus.Node> nodes = new ArrayList<>();
    for (Pod pod : pods) {
      String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
      if (node == null || node.isEmpty() || ip == null || ip.isEmpty()) {
        continue;
      }
      ComputeDomainStatus.Node n = new ComputeDomainStatus.Node();
      n.name = node;
      n.ipAddress = ip;
      n.cliqueID = cliques.getOrDefault(node, "");
      n.status = ready(pod) ? Readiness.Ready : Readiness.NotReady;
      ComputeDomainStatus.Node written = before.get(node);
      if (written != null && ip.equals(written.ipAddress) && written.index != null) {
        // This pod's daemon's entry (or ours, already kept by it): its clique and index stand.
        n.cliqueID = written.cliqueID == null ? "" : written.cliqueID;
        n.index = written.index;
      }
      nodes.add(n);
    }
    nodes.sort(Comparator.comparing((ComputeDomainStatus.Node n) -> n.name));
    index(nodes, before);
    ComputeDomainStatus status = new ComputeDomainStatus();
    status.nodes = nodes.isEmpty() ? null : nodes;
    int wanted = cd.getSpec() == null || cd.getSpec().numNodes == null ? 0 : cd.getSpec().numNodes;
    boolean ready =
        nodes.size() >= wanted && nodes.stream().allMatch(n -> n.status == Readiness.Ready);
    status.status = ready ? Readiness.Ready : Readiness.NotReady;
    return status;
  }

  /** Whether two statuses say the same (nothing to write). */
  public static boolean same(ComputeDomainStatus a, ComputeDomainStatus b) {
    if (a == null || b == null) {
      return a == b;
    }
    return a.status == b.status && key(a.nodes).equals(key(b.nodes));
  }

  private static List<String> key(List<ComputeDomainStatus.Node> nodes) {
    List<String> out = new ArrayList<>();
    for (ComputeDomainStatus.Node n : nodes == null ? List.<ComputeDomainStatus.Node>of() : nodes) {
      out.add(n.name + "|" + n.ipAddress + "|" + n.cliqueID + "|" + n.index + "|" + n.status);
    }
    return out;
  }

  private static void index(
      List<ComputeDomainStatus.Node> nodes, Map<String, ComputeDomainStatus.Node> before) {
    Map<String, Set<Integer>> taken = new HashMap<>();
    for (ComputeDomainStatus.Node n : nodes) {
      if (n.index != null) {
        taken.computeIfAbsent(n.cliqueID, k -> new HashSet<>()).add(n.index);
      }
    }
    for (ComputeDomainStatus.Node n : nodes) {
      if (n.index != null) {
        continue;
      }
      ComputeDomainStatus.Node old = before.get(n.name);
      if (old != null
          && Objects.equals(old.cliqueID, n.cliqueID)
          && old.index != null
          && old.index >= 0
          && taken.computeIfAbsent(n.cliqueID, k -> new HashSet<>()).add(old.index)) {
        n.index = old.index;
      }
    }
    for (ComputeDomainStatus.Node n : nodes) {
      if (n.index == null) {
        Set<Integer> used = taken.computeIfAbsent(n.cliqueID, k -> new HashSet<>());
        int i = 0;
        while (used.contains(i)) {
          i++;
        }
        used.add(i);
        n.index = i;
      }
    }
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}

package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.operator.labels.Labels;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Derives the node-related {@link ClusterFacts} from the cached Nodes. Pure. */
public final class NodeFacts {
  public static final String GPU_PRESENT = Labels.GPU_PRESENT;
  public static final String NFD_PREFIX = Labels.NFD_PREFIX;
  public static final String OS_ID = Labels.NFD_OS_ID;
  public static final String OS_VERSION = Labels.NFD_OS_VERSION_ID;

  private NodeFacts() {}

  /** Facts about the cluster's nodes, with the server version and ServiceMonitor CRD presence. */
  public static ClusterFacts of(
      Collection<Node> nodes, String kubernetesVersion, boolean serviceMonitorCrd) {
    var gpuNodes = nodes.stream().filter(NodeFacts::isGpuNode).toList();
    boolean nfd =
        nodes.stream()
            .anyMatch(n -> labels(n).keySet().stream().anyMatch(k -> k.startsWith(NFD_PREFIX)));
    return new ClusterFacts(
        kubernetesVersion,
        mostCommon(gpuNodes, NodeFacts::runtime, "containerd"),
        serviceMonitorCrd,
        gpuNodes.size(),
        nfd,
        mostCommon(gpuNodes, NodeFacts::osTag, null),
        kernelVersions(gpuNodes),
        java.util.Map.of(),
        gpuNodes.stream().map(NodeSystem::of).distinct().sorted(NodeSystem.ORDER).toList());
  }

  /** Distinct kernels of the GPU nodes, sorted: a precompiled driver gets one DaemonSet each. */
  private static List<String> kernelVersions(Collection<Node> gpuNodes) {
    return gpuNodes.stream()
        .map(n -> labels(n).get(io.gpuoperator.operator.labels.Labels.NFD_KERNEL_FULL))
        .filter(k -> k != null && !k.isBlank())
        .distinct()
        .sorted()
        .toList();
  }

  /**
   * A node the node-label reconciler marked as having NVIDIA GPUs, or will mark: NFD already says
   * so. The label reconciler runs beside the policy reconciler, so the first render of a new
   * cluster may come before the label; without this the driver image would lack its OS suffix and
   * the OnDelete driver DaemonSet would get a second revision that no pod ever runs.
   */
  public static boolean isGpuNode(Node n) {
    return "true".equals(labels(n).get(GPU_PRESENT))
        || io.gpuoperator.operator.labels.NodeLabelRules.isGpuNode(n);
  }

  private static String runtime(Node n) {
    if (n.getStatus() == null || n.getStatus().getNodeInfo() == null) {
      return null;
    }
    String v = n.getStatus().getNodeInfo().getContainerRuntimeVersion();
    if (v == null || !v.contains("://")) {
      return null;
    }
    String name = v.substring(0, v.indexOf("://")).toLowerCase(Locale.ROOT);
    return name.equals("cri-o") ? "crio" : name;
  }

  /** e.g. ubuntu22.04, rhel9 (major version only for RHEL-like systems, as driver tags use). */
  private static String osTag(Node n) {
    return NodeSystem.of(n).osTag();
  }

  private static String mostCommon(
      Collection<Node> nodes, Function<Node, String> f, String fallback) {
    return nodes.stream()
        .map(f)
        .filter(v -> v != null)
        .collect(Collectors.groupingBy(v -> v, Collectors.counting()))
        .entrySet()
        .stream()
        .max(
            Map.Entry.<String, Long>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
        .map(Map.Entry::getKey)
        .orElse(fallback);
  }

  private static Map<String, String> labels(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }
}

package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeSystem;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Cluster facts predicted from Node objects, as they will be once the operator has labelled the GPU
 * nodes (so a cluster that has never seen the operator plans like one that has).
 */
public final class PlanFacts {
  private PlanFacts() {}

  /** Facts for the given nodes. */
  public static ClusterFacts of(
      Collection<Node> nodes, String kubernetesVersion, boolean serviceMonitorCrd) {
    var gpu = nodes.stream().filter(NodeLabelRules::isGpuNode).toList();
    boolean nfd = nodes.stream().anyMatch(NodeLabelRules::hasNfdLabels);
    var kernels =
        gpu.stream()
            .map(n -> labels(n).get(Labels.NFD_KERNEL_FULL))
            .filter(Objects::nonNull)
            .distinct()
            .sorted()
            .toList();
    return new ClusterFacts(
            kubernetesVersion,
            mostCommon(gpu, PlanFacts::runtime, "containerd"),
            serviceMonitorCrd,
            gpu.size(),
            nfd,
            mostCommon(gpu, PlanFacts::osTag, null))
        .withKernelVersions(kernels)
        .withSystems(gpu.stream().map(NodeSystem::of).toList());
  }

  /** containerd, crio or docker from the node's containerRuntimeVersion. */
  static String runtime(Node n) {
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

  /** The driver image OS tag: ubuntu22.04, or the major version only for RHEL-like systems. */
  static String osTag(Node n) {
    return NodeSystem.of(n).osTag();
  }

  private static String mostCommon(
      Collection<Node> nodes, Function<Node, String> f, String fallback) {
    return nodes.stream()
        .map(f)
        .filter(Objects::nonNull)
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
    return n.getMetadata() == null || n.getMetadata().getLabels() == null
        ? Map.of()
        : n.getMetadata().getLabels();
  }
}

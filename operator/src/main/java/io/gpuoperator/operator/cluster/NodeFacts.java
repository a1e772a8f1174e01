package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one place that turns Node objects into {@link ClusterFacts}, used by the operator (from its
 * node cache) and by {@code plan} (from a cluster or a nodes file). Pure.
 *
 * <p>The facts describe the GPU nodes as they are once the node-label reconciler has run ({@link
 * NodeLabelRules#isGpuNode}): the label reconciler runs beside the policy reconciler, so the first
 * render of a new cluster may come before {@code nvidia.com/gpu.present}; counting NFD's GPU nodes
 * already keeps the driver image's OS suffix from appearing one pass late (which would give the
 * OnDelete driver DaemonSet a second revision no pod runs), and makes {@code plan} on a cluster
 * that never saw the operator plan like one that has.
 *
 * <p>Where the GPU nodes disagree the most common OS and runtime win (ties: the smaller name), so
 * the answer does not depend on list order; the original takes the first GPU node's.
 */
public final class NodeFacts {
  /**
   * An operating system the driver images are built for, by NFD's {@code os_release.ID}.
   *
   * @param majorOnly whether the image tag carries the major version only ({@code rhel9} from 9.4),
   *     as the original does for rhel, rocky and ol; the others keep VERSION_ID whole ({@code
   *     ubuntu22.04}, {@code sles15.5}, {@code centos7})
   * @param family the package family (repository and certificate folders of the driver container)
   */
  public record Os(String id, boolean majorOnly, Family family) {}

  /** Package families, by where the driver container keeps repository files and CA certificates. */
  public enum Family {
    RHEL,
    DEBIAN,
    SLES
  }

  /** Every OS id the original knows; an unknown id keeps its whole version, family Debian. */
  public static final List<Os> OS_TABLE =
      List.of(
          new Os("ubuntu", false, Family.DEBIAN),
          new Os("debian", false, Family.DEBIAN),
          new Os("rhel", true, Family.RHEL),
          new Os("rocky", true, Family.RHEL),
          new Os("ol", true, Family.RHEL),
          new Os("centos", false, Family.RHEL),
          new Os("rhcos", false, Family.RHEL),
          new Os("sles", false, Family.SLES),
          new Os("sl-micro", false, Family.SLES));

  /** The id at the start of an OS tag: letters, optionally one dash and more letters. */
  private static final Pattern OS_ID = Pattern.compile("^([a-z]+(?:-[a-z]+)?)");

  private NodeFacts() {}

  /** Facts about the cluster's nodes, with the server version and ServiceMonitor CRD presence. */
  public static ClusterFacts of(
      Collection<Node> nodes, String kubernetesVersion, boolean serviceMonitorCrd) {
    List<Node> gpuNodes = nodes.stream().filter(NodeLabelRules::isGpuNode).toList();
    return new ClusterFacts(
        kubernetesVersion,
        mostCommon(gpuNodes, NodeFacts::runtime, "containerd"),
        serviceMonitorCrd,
        gpuNodes.size(),
        nodes.stream().anyMatch(NodeLabelRules::hasNfdLabels),
        mostCommon(gpuNodes, NodeFacts::osTag, null),
        gpuNodes.stream()
            .map(n -> labels(n).get(Labels.NFD_KERNEL_FULL))
            .filter(NodeFacts::present)
            .map(String::trim)
            .distinct()
            .sorted()
            .toList(),
        Map.of(),
        // The server's resource.k8s.io version is not a node fact: the reconciler adds it.
        ResourceApiVersion.V1,
        gpuNodes.stream().map(NodeSystem::of).distinct().sorted(NodeSystem.ORDER).toList(),
        // Nor is the platform: the reconciler adds it (OpenShift), and the Driver Toolkit's images.
        false,
        new DriverToolkitFacts(
            gpuNodes.stream()
                .map(n -> labels(n).get(Labels.NFD_OSTREE_VERSION))
                .filter(NodeFacts::present)
                .map(String::trim)
                .toList(),
            false,
            Map.of()));
  }

  /** containerd, crio or docker from the node's containerRuntimeVersion, or null. */
  public static String runtime(Node n) {
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

  /** The driver image OS tag of a node from its NFD os_release labels, or null when unknown. */
  public static String osTag(Node n) {
    return osTag(labels(n).get(Labels.NFD_OS_ID), labels(n).get(Labels.NFD_OS_VERSION_ID));
  }

  /** The OS tag for an os_release ID and VERSION_ID, e.g. ubuntu22.04, rhel9; null if unknown. */
  public static String osTag(String id, String version) {
    if (!present(id) || !present(version)) {
      return null;
    }
    String osId = id.trim().toLowerCase(Locale.ROOT);
    String v = version.trim();
    return osId + (os(osId).majorOnly() ? v.split("\\.")[0] : v);
  }

  /** The table row of an OS id (lower case); an unknown id gets the defaults. */
  public static Os os(String id) {
    return known(id).orElse(new Os(id, false, Family.DEBIAN));
  }

  /** The table row of an OS id (lower case), or empty when the original does not know it. */
  public static Optional<Os> known(String id) {
    return OS_TABLE.stream().filter(o -> o.id().equals(id)).findFirst();
  }

  /** The OS id of an OS tag ("rhel9" → "rhel", "sl-micro6.0" → "sl-micro"), or null. */
  public static String osId(String osTag) {
    if (osTag == null) {
      return null;
    }
    Matcher m = OS_ID.matcher(osTag.toLowerCase(Locale.ROOT));
    return m.find() ? m.group(1) : null;
  }

  /** The package family of an OS tag such as rhel9 or ubuntu22.04 (Debian when unknown). */
  public static Family family(String osTag) {
    String id = osId(osTag);
    return id == null ? Family.DEBIAN : os(id).family();
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
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

package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.operator.labels.Labels;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;

/**
 * The operating system and kernel of a GPU node, from its NFD labels: what decides which driver
 * image it runs. Each part is null when the node does not carry the label.
 *
 * @param osId {@code system-os_release.ID}, lower case (ubuntu, rhel, ...)
 * @param osVersion {@code system-os_release.VERSION_ID} (22.04, 9.4, ...)
 * @param kernel {@code kernel-version.full}
 */
public record NodeSystem(String osId, String osVersion, String kernel) {
  /** NFD's major part of VERSION_ID, which pools select on where the tag has the major only. */
  public static final String OS_VERSION_MAJOR = Labels.NFD_OS_VERSION_ID + ".major";

  /** Sorted by OS tag, then kernel (unknown parts first). */
  public static final Comparator<NodeSystem> ORDER =
      Comparator.comparing(
              (NodeSystem s) -> s.osTag(), Comparator.nullsFirst(Comparator.<String>naturalOrder()))
          .thenComparing(NodeSystem::kernel, Comparator.nullsFirst(Comparator.naturalOrder()));

  public NodeSystem {
    osId = blank(osId) ? null : osId.trim().toLowerCase(Locale.ROOT);
    osVersion = blank(osVersion) ? null : osVersion.trim();
    kernel = blank(kernel) ? null : kernel.trim();
  }

  /** The system a node's labels describe. */
  public static NodeSystem of(Node node) {
    Map<String, String> l = node.getMetadata().getLabels();
    return of(l == null ? Map.of() : l);
  }

  /** The system a label map describes. */
  public static NodeSystem of(Map<String, String> labels) {
    return new NodeSystem(
        labels.get(Labels.NFD_OS_ID),
        labels.get(Labels.NFD_OS_VERSION_ID),
        labels.get(Labels.NFD_KERNEL_FULL));
  }

  /** The driver image OS tag, e.g. ubuntu22.04 or rhel9; null when the OS is unknown. */
  public String osTag() {
    return NodeFacts.osTag(osId, osVersion);
  }

  /**
   * The node labels that select every node with this OS tag: the ID and the VERSION_ID, or its
   * major part where the tag has only that (so rhel 9.2 and 9.4 nodes share the rhel9 image). Empty
   * when the OS is unknown.
   */
  public Map<String, String> osSelector() {
    if (osTag() == null) {
      return Map.of();
    }
    return NodeFacts.os(osId).majorOnly()
        ? Map.of(Labels.NFD_OS_ID, osId, OS_VERSION_MAJOR, osVersion.split("\\.")[0])
        : Map.of(Labels.NFD_OS_ID, osId, Labels.NFD_OS_VERSION_ID, osVersion);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}

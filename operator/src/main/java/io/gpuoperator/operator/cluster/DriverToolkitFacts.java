package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What OpenShift's Driver Toolkit (DTK) path of the driver needs to know about the cluster: the
 * RHCOS versions of the GPU nodes (NFD's {@code system-os_release.OSTREE_VERSION} label) and the
 * Driver Toolkit image of each, from the ImageStream {@code driver-toolkit} in the {@code
 * openshift} namespace (one tag per RHCOS version), as the original reads them.
 *
 * @param rhcosVersions the distinct RHCOS versions of the GPU nodes, sorted; empty when no GPU node
 *     carries the label (NFD too old, or not RHCOS)
 * @param imageStream whether the ImageStream exists (null: not looked for, off OpenShift)
 * @param images the ImageStream's image per tag (RHCOS version), without {@code latest} and tags
 *     that name no image
 */
public record DriverToolkitFacts(
    List<String> rhcosVersions, boolean imageStream, Map<String, String> images) {
  /** Where OpenShift publishes the Driver Toolkit images. */
  public static final String NAMESPACE = "openshift";

  public static final String IMAGE_STREAM = "driver-toolkit";
  public static final String IMAGE_STREAM_API_VERSION = "image.openshift.io/v1";

  /** Nothing known: no RHCOS node, no ImageStream. */
  public static final DriverToolkitFacts NONE = new DriverToolkitFacts(List.of(), false, Map.of());

  public DriverToolkitFacts {
    rhcosVersions =
        rhcosVersions == null ? List.of() : rhcosVersions.stream().distinct().sorted().toList();
    images = images == null ? Map.of() : Map.copyOf(images);
  }

  /** The same facts with what the ImageStream says (null: it does not exist). */
  public DriverToolkitFacts withImageStream(GenericKubernetesResource stream) {
    return new DriverToolkitFacts(rhcosVersions, stream != null, images(stream));
  }

  /**
   * The image of each tag of a {@code driver-toolkit} ImageStream: {@code spec.tags[].from.name} by
   * {@code spec.tags[].name}, skipping {@code latest} and tags without a name or an image (a broken
   * stream has nameless tags; the original skips them too).
   */
  static Map<String, String> images(GenericKubernetesResource stream) {
    Map<String, String> out = new TreeMap<>();
    if (stream == null
        || !(stream.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)) {
      return out;
    }
    if (!(spec.get("tags") instanceof List<?> tags)) {
      return out;
    }
    for (Object t : tags) {
      if (!(t instanceof Map<?, ?> tag)
          || !(tag.get("name") instanceof String name)
          || name.isBlank()
          || name.equals("latest")
          || !(tag.get("from") instanceof Map<?, ?> from)
          || !(from.get("name") instanceof String image)
          || image.isBlank()) {
        continue;
      }
      out.put(name, image);
    }
    return out;
  }

  /**
   * Whether a policy asks for the Driver Toolkit on a cluster: on OpenShift, unless {@code
   * operator.use_ocp_driver_toolkit} is false (the original's default is on).
   */
  public static boolean requested(ClusterPolicySpec spec, boolean openShift) {
    return openShift
        && (spec == null
            || spec.operator == null
            || !Boolean.FALSE.equals(spec.operator.useOcpDriverToolkit));
  }

  /**
   * The facts with the ImageStream read, where the policy asks for the toolkit and a GPU node runs
   * RHCOS (only then is it looked for: one read per pass on such clusters, none elsewhere).
   */
  public static ClusterFacts observe(
      ClusterFacts facts, ClusterPolicySpec spec, KubernetesClient client) {
    if (!requested(spec, facts.openShift()) || facts.driverToolkit().rhcosVersions().isEmpty()) {
      return facts;
    }
    return facts.withDriverToolkit(facts.driverToolkit().withImageStream(readImageStream(client)));
  }

  /**
   * Reads the ImageStream: null when it does not exist; other failures (a refused read) propagate,
   * so the pass is retried rather than rendering without the toolkit.
   */
  public static GenericKubernetesResource readImageStream(KubernetesClient client) {
    try {
      return client
          .genericKubernetesResources(IMAGE_STREAM_API_VERSION, "ImageStream")
          .inNamespace(NAMESPACE)
          .withName(IMAGE_STREAM)
          .get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return null; // the kind itself is not served
      }
      throw e;
    }
  }
}

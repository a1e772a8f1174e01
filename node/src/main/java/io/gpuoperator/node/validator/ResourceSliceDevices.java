package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.dra.ResourceApiVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The devices a DRA driver published for a node, read from the API server's ResourceSlices. */
final class ResourceSliceDevices {
  private ResourceSliceDevices() {}

  /**
   * One list of the driver's slices for the node (field selectors {@code spec.nodeName} and {@code
   * spec.driver}) in the newest {@code resource.k8s.io} version the server serves.
   */
  static DraValidation.PublishedDevices of(
      Supplier<KubernetesClient> client, String nodeName, String driver) {
    return () -> {
      if (nodeName == null || nodeName.isBlank()) {
        throw new ValidationException("NODE_NAME (--node-name) is required");
      }
      KubernetesClient c = client.get();
      ResourceApiVersion version =
          ResourceApiVersion.discover(c)
              .orElseThrow(
                  () ->
                      new ValidationException(
                          "the API server serves no resource.k8s.io version (v1, v1beta2 or"
                              + " v1beta1): the DRA driver needs Kubernetes 1.32 or newer"));
      List<String> names = new ArrayList<>();
      for (GenericKubernetesResource slice :
          c.genericKubernetesResources(version.apiVersion(), "ResourceSlice")
              .withField("spec.nodeName", nodeName)
              .withField("spec.driver", driver)
              .list()
              .getItems()) {
        names.addAll(deviceNames(slice));
      }
      return names;
    };
  }

  @SuppressWarnings("unchecked")
  private static List<String> deviceNames(GenericKubernetesResource slice) {
    List<String> out = new ArrayList<>();
    if (slice.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
        && spec.get("devices") instanceof List<?> devices) {
      for (Object d : devices) {
        if (d instanceof Map<?, ?> m && m.get("name") instanceof String name) {
          out.add(name);
        }
      }
    }
    return out;
  }
}

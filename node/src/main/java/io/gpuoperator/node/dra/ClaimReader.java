package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.dra.ResourceApiVersion;

/** Reads a ResourceClaim (its allocation is what prepare works from). */
@FunctionalInterface
public interface ClaimReader {

  /** The claim, or null when it does not exist. */
  GenericKubernetesResource get(String namespace, String name);

  /** From the API server, in the version it serves. */
  static ClaimReader api(KubernetesClient client, ResourceApiVersion version) {
    return (namespace, name) ->
        client
            .genericKubernetesResources(version.apiVersion(), "ResourceClaim")
            .inNamespace(namespace)
            .withName(name)
            .get();
  }
}

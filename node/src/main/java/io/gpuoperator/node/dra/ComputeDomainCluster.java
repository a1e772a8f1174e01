package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import java.util.HashMap;
import java.util.Map;

/**
 * What the ComputeDomain driver reads and writes in the cluster when it prepares a claim: the
 * domain a claim's configuration names (by UID), and the node's domain label.
 */
public interface ComputeDomainCluster {

  /** The ComputeDomain with this UID, or null when none exists. */
  ComputeDomain domain(String uid);

  /** The node's label value, or null. */
  String label(String key);

  /** Sets (value) or removes (null) the node's label. */
  void setLabel(String key, String value);

  /** Through the API server, for one node. */
  static ComputeDomainCluster api(KubernetesClient client, String node) {
    return new ComputeDomainCluster() {
      @Override
      public ComputeDomain domain(String uid) {
        // Claims name the domain by UID only; a node sees few domains, so a list is enough.
        return client.resources(ComputeDomain.class).inAnyNamespace().list().getItems().stream()
            .filter(cd -> uid.equals(cd.getMetadata().getUid()))
            .findFirst()
            .orElse(null);
      }

      @Override
      public String label(String key) {
        Node n = client.nodes().withName(node).get();
        if (n == null) {
          throw new IllegalStateException("node " + node + " does not exist");
        }
        Map<String, String> labels = n.getMetadata().getLabels();
        return labels == null ? null : labels.get(key);
      }

      @Override
      public void setLabel(String key, String value) {
        Map<String, Object> labels = new HashMap<>();
        labels.put(key, value); // null: a merge patch removes the key
        String patch;
        try {
          patch =
              new com.fasterxml.jackson.databind.ObjectMapper()
                  .writeValueAsString(Map.of("metadata", Map.of("labels", labels)));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new IllegalStateException(e);
        }
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      }
    };
  }
}

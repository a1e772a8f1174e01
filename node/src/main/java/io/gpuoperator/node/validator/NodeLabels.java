package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.function.Supplier;

/** This node's labels, which switch the sandbox, CC and MOFED steps on or off. */
@FunctionalInterface
interface NodeLabels {
  Map<String, String> get() throws ValidationException;

  /** Read from the API server: one GET of the Node when a step asks. */
  static NodeLabels of(Supplier<KubernetesClient> client, String nodeName) {
    return () -> {
      if (nodeName == null || nodeName.isBlank()) {
        throw new ValidationException("NODE_NAME (--node-name) is required to read its labels");
      }
      Node node = client.get().nodes().withName(nodeName).get();
      if (node == null) {
        throw new ValidationException("node " + nodeName + " does not exist");
      }
      Map<String, String> labels = node.getMetadata().getLabels();
      return labels == null ? Map.of() : labels;
    };
  }
}

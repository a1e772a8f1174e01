package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.NodeWatch;
import java.util.Map;
import java.util.function.Supplier;

/** This node's labels, which switch the sandbox, CC and MOFED steps on or off. */
@FunctionalInterface
interface NodeLabels {
  Map<String, String> get() throws ValidationException;

  /**
   * Read from {@code nodes} when a step asks: one GET of the Node on a real node, the simulator's
   * one shared watch of every Node in-process.
   */
  static NodeLabels of(Supplier<NodeWatch> nodes, String nodeName) {
    return () -> {
      if (nodeName == null || nodeName.isBlank()) {
        throw new ValidationException("NODE_NAME (--node-name) is required to read its labels");
      }
      Node node = nodes.get().current(nodeName);
      if (node == null) {
        throw new ValidationException("node " + nodeName + " does not exist");
      }
      Map<String, String> labels = node.getMetadata().getLabels();
      return labels == null ? Map.of() : labels;
    };
  }
}

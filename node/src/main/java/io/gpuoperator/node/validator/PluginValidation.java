package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.api.NodeWatch;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/** The plugin step: the Node advertises {@code nvidia.com/gpu} or {@code nvidia.com/mig-*}. */
record PluginValidation(ValidatorConfig config, NodeWatch nodes) {

  /**
   * Watches the Node (no poll: the device plugin's registration shows up as one event) until it
   * advertises GPUs or {@code timeout} passes; through {@code nodes}, so that in the simulator the
   * validators of a thousand nodes add no list and watch of their own to its one watch of Nodes.
   */
  CompletableFuture<String> validate(Waits waits) {
    if (config.nodeName() == null || config.nodeName().isBlank()) {
      return CompletableFuture.failedFuture(
          new ValidationException("NODE_NAME (--node-name) is required"));
    }
    String name = config.nodeName();
    return Watches.node(waits, nodes, name, n -> !gpuResources(n).isEmpty(), config.timeout())
        .thenCompose(
            met ->
                waits.call(
                    () -> verdict(met.isPresent() ? met.get().value() : nodes.current(name))));
  }

  private String verdict(Node last) throws ValidationException {
    if (last == null) {
      throw new ValidationException("node " + config.nodeName() + " does not exist");
    }
    String found = gpuResources(last);
    if (!found.isEmpty()) {
      return found;
    }
    throw new ValidationException(
        "node "
            + config.nodeName()
            + " advertises no "
            + ValidatorEnv.GPU_RESOURCE
            + " or "
            + ValidatorEnv.MIG_RESOURCE_PREFIX
            + "* capacity after "
            + config.timeout().toSeconds()
            + " s (capacity: "
            + new TreeMap<>(capacity(last)).keySet()
            + ")");
  }

  private static Map<String, Quantity> capacity(Node node) {
    return node.getStatus() == null || node.getStatus().getCapacity() == null
        ? Map.of()
        : node.getStatus().getCapacity();
  }

  /** {@code name=n} lines of the node's positive GPU and MIG capacity, empty when none. */
  private static String gpuResources(Node node) {
    StringBuilder found = new StringBuilder();
    for (Map.Entry<String, Quantity> e : new TreeMap<>(capacity(node)).entrySet()) {
      String name = e.getKey();
      if ((name.equals(ValidatorEnv.GPU_RESOURCE)
              || name.startsWith(ValidatorEnv.MIG_RESOURCE_PREFIX))
          && Quantity.getAmountInBytes(e.getValue()).signum() > 0) {
        found.append(name).append('=').append(e.getValue().getAmount()).append('\n');
      }
    }
    return found.toString();
  }
}

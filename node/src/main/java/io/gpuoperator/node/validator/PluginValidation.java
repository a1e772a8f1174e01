package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/** The plugin step: the Node advertises {@code nvidia.com/gpu} or {@code nvidia.com/mig-*}. */
final class PluginValidation {
  private final ValidatorConfig config;
  private final KubernetesClient client;

  PluginValidation(ValidatorConfig config, KubernetesClient client) {
    this.config = config;
    this.client = client;
  }

  String validate() throws ValidationException, InterruptedException {
    if (config.nodeName() == null || config.nodeName().isBlank()) {
      throw new ValidationException("NODE_NAME (--node-name) is required");
    }
    Instant deadline = Instant.now().plus(config.timeout());
    Map<String, Quantity> last = Map.of();
    while (true) {
      Node node = client.nodes().withName(config.nodeName()).get();
      if (node == null) {
        throw new ValidationException("node " + config.nodeName() + " does not exist");
      }
      last =
          node.getStatus() == null || node.getStatus().getCapacity() == null
              ? Map.of()
              : node.getStatus().getCapacity();
      StringBuilder found = new StringBuilder();
      for (Map.Entry<String, Quantity> e : new TreeMap<>(last).entrySet()) {
        String name = e.getKey();
        if ((name.equals(ValidatorEnv.GPU_RESOURCE)
                || name.startsWith(ValidatorEnv.MIG_RESOURCE_PREFIX))
            && Quantity.getAmountInBytes(e.getValue()).signum() > 0) {
          found.append(name).append('=').append(e.getValue().getAmount()).append('\n');
        }
      }
      if (found.length() > 0) {
        return found.toString();
      }
      if (!Instant.now().isBefore(deadline)) {
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
                + new TreeMap<>(last).keySet()
                + ")");
      }
      Thread.sleep(config.poll().toMillis());
    }
  }
}

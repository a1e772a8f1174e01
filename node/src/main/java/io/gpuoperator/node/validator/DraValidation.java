package io.gpuoperator.node.validator;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The dra step, the DRA-native analog of the plugin step (the original runs it as its own {@code
 * nvidia-dra-validator} state when the DRA driver is deployed): on a node where the DRA driver runs
 * ({@code nvidia.com/gpu.deploy.dra-driver=true}), its kubelet plugin has published the node's GPUs
 * in ResourceSlices of driver {@code gpu.nvidia.com}, so the scheduler can allocate claims there.
 * Any other node skips it and writes no marker.
 */
record DraValidation(ValidatorConfig config, NodeLabels labels, PublishedDevices devices) {
  /** The DRA driver's deploy label: the plugin's DaemonSet selects {@code true}. */
  static final String DEPLOY_LABEL = "nvidia.com/gpu.deploy.dra-driver";

  /** The DRA driver whose slices are checked (NVIDIA's name, which ours publishes under). */
  static final String DRIVER = "gpu.nvidia.com";

  /** The names of the devices a driver published for this node, over every slice of its pool. */
  @FunctionalInterface
  interface PublishedDevices {
    List<String> get() throws ValidationException;
  }

  CompletableFuture<Verdict> validate(Waits waits) {
    return waits.call(labels::get).thenCompose(l -> validate(waits, l));
  }

  private CompletableFuture<Verdict> validate(Waits waits, Map<String, String> l) {
    String deploy = l.get(DEPLOY_LABEL);
    if (!"true".equals(deploy)) {
      return CompletableFuture.completedFuture(
          Verdict.skip(
              "the DRA driver is not deployed on this node ("
                  + DEPLOY_LABEL
                  + (deploy == null ? " is not set" : "=" + deploy)
                  + ")"));
    }
    return Retry.until(
            waits,
            config,
            "DRA driver " + DRIVER,
            () -> {
              List<String> names = devices.get();
              if (names.isEmpty()) {
                throw new ValidationException(
                    "node "
                        + config.nodeName()
                        + ": the DRA driver "
                        + DRIVER
                        + " has published no device in a ResourceSlice for it (is its kubelet"
                        + " plugin, nvidia-dra-driver-gpu-kubelet-plugin, running there?)");
              }
              return names;
            })
        .thenApply(found -> Verdict.ready(Component.DRA, String.join("\n", found) + "\n"));
  }
}

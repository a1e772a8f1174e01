package io.gpuoperator.node.validator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The mofed step: with GPUDirect RDMA on and a Mellanox NIC on the node (NFD's label), the MOFED
 * driver is ready: {@code mlx5_core} loaded when MOFED is on the host, else the readiness file of
 * NVIDIA's network operator's driver container. Otherwise skipped, as in the original.
 */
record MofedValidation(ValidatorConfig config, NodeLabels labels) {

  CompletableFuture<Verdict> validate(Waits waits) {
    if (!config.rdmaEnabled()) {
      return CompletableFuture.completedFuture(
          Verdict.skip(
              "GPUDirect RDMA is off (" + ValidatorEnv.GPU_DIRECT_RDMA_ENABLED + " is not true)"));
    }
    return waits.call(labels::get).thenCompose(l -> validate(waits, l));
  }

  private CompletableFuture<Verdict> validate(Waits waits, Map<String, String> l) {
    if (!"true".equals(l.get(ValidatorEnv.MELLANOX_LABEL))) {
      return CompletableFuture.completedFuture(
          Verdict.skip(
              "no Mellanox device on this node (no label "
                  + ValidatorEnv.MELLANOX_LABEL
                  + "=true)"));
    }
    Path root = config.systemRoot();
    return Retry.until(
            waits,
            config,
            "MOFED driver",
            () -> {
              if (config.hostMofed()) {
                KernelModules.require(root, "mlx5_core", "MOFED on the host");
              } else {
                Path ready = root.resolve(ValidatorEnv.MOFED_DRIVER_READY);
                if (!Files.exists(ready)) {
                  throw new ValidationException(
                      "the MOFED driver container is not ready: no "
                          + ready
                          + " (set "
                          + ValidatorEnv.USE_HOST_MOFED
                          + "=true for MOFED installed on the host)");
                }
              }
              return null;
            })
        .thenApply(v -> Verdict.ready(Component.MOFED, ""));
  }
}

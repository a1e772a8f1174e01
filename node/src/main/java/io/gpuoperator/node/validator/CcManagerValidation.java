package io.gpuoperator.node.validator;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The cc-manager step: on a node whose GPUs can run confidential computing ({@code
 * nvidia.com/cc.capable=true}), the CC manager has applied the CC mode ({@code
 * .cc-manager-ctr-ready}); any other node passes at once. Its marker is written in both cases, as
 * the original writes it: the step is off only where the operator does not render it.
 */
record CcManagerValidation(ValidatorConfig config, NodeLabels labels) {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(CcManagerValidation.class);

  CompletableFuture<Verdict> validate(Waits waits) {
    return waits.call(labels::get).thenCompose(l -> validate(waits, l));
  }

  private CompletableFuture<Verdict> validate(Waits waits, Map<String, String> l) {
    if (!"true".equals(l.get(ValidatorEnv.CC_CAPABLE_LABEL))) {
      LOG.info(
          "not a CC-capable node (no {}=true label): nothing to wait for",
          ValidatorEnv.CC_CAPABLE_LABEL);
      return CompletableFuture.completedFuture(Verdict.ready(Component.CC_MANAGER, ""));
    }
    MarkerFiles markers = new MarkerFiles(config.validationsDir());
    return Retry.until(
            waits,
            config,
            "CC manager",
            () -> {
              if (!markers.exists(ValidatorEnv.CC_MANAGER_CONTAINER_READY)) {
                throw new ValidationException(
                    "the CC manager has not applied the CC mode: no "
                        + markers.path(ValidatorEnv.CC_MANAGER_CONTAINER_READY));
              }
              return null;
            })
        .thenApply(v -> Verdict.ready(Component.CC_MANAGER, ""));
  }
}

package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The cuda step: once the node advertises GPUs (the device plugin registered; otherwise the kubelet
 * would refuse the pod), runs a workload pod that requests one GPU on this node (the vectorAdd
 * sample) and waits for it to complete. The pod is deleted afterwards, whatever the outcome.
 */
record CudaValidation(ValidatorConfig config, KubernetesClient client, NodeWatch nodes) {
  static final String APP_LABEL = "nvidia-cuda-validator";

  CompletableFuture<String> validate(Waits waits) {
    if (config.nodeName() == null || config.nodeName().isBlank()) {
      return CompletableFuture.failedFuture(
          new ValidationException("cuda: NODE_NAME (--node-name) is required"));
    }
    String ns = config.namespace();
    return new PluginValidation(config, nodes)
        .validate(waits)
        .thenCompose(
            plugin ->
                waits.call(() -> workload(config, resource(nodes.current(config.nodeName())))))
        .thenComposeAsync(
            pod -> {
              // Created here, not in a cancellable call: once the pod exists, the wait below (at
              // once cancelled when the run has ended) is what deletes it.
              client.pods().inNamespace(ns).resource(pod).create();
              return completion(waits, ns, pod.getMetadata().getName());
            },
            waits.scheduler());
  }

  /**
   * Waits for the workload pod to end and deletes it, whatever the outcome: passed, failed, timed
   * out, or the run cancelled (the delete then runs on after the run's end).
   */
  private CompletableFuture<String> completion(Waits waits, String ns, String name) {
    // Watched, not polled: the pod's phase changes a few times in its life.
    var resource = client.pods().inNamespace(ns).withName(name);
    return Watches.until(
            waits,
            resource,
            p -> p == null || "Succeeded".equals(phase(p)) || "Failed".equals(phase(p)),
            config.timeout())
        .handleAsync(
            (met, failure) -> {
              try {
                if (failure != null) {
                  throw new CompletionException(Waits.unwrap(failure));
                }
                return outcome(ns, name, met.isPresent() ? met.get().value() : resource.get());
              } catch (ValidationException e) {
                throw new CompletionException(e);
              } finally {
                client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
              }
            },
            waits.cleanup());
  }

  private String outcome(String ns, String name, Pod now) throws ValidationException {
    if (now == null) {
      throw new ValidationException("cuda: workload pod " + ns + "/" + name + " disappeared");
    }
    String phase = phase(now);
    if ("Succeeded".equals(phase)) {
      return "";
    }
    if ("Failed".equals(phase)) {
      throw new ValidationException(
          "cuda: workload pod " + ns + "/" + name + " failed: " + why(now));
    }
    throw new ValidationException(
        "cuda: workload pod "
            + ns
            + "/"
            + name
            + " did not complete within "
            + config.timeout().toSeconds()
            + " s (phase "
            + phase
            + ")");
  }

  private static String phase(Pod p) {
    return p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  /**
   * The resource the workload asks for: {@code nvidia.com/gpu}, or under the mixed MIG strategy (no
   * {@code nvidia.com/gpu} on the node) the first {@code nvidia.com/mig-*} resource it has.
   */
  static String resource(io.fabric8.kubernetes.api.model.Node node) {
    Map<String, Quantity> allocatable =
        node == null || node.getStatus() == null || node.getStatus().getAllocatable() == null
            ? Map.of()
            : node.getStatus().getAllocatable();
    if (positive(allocatable.get(ValidatorEnv.GPU_RESOURCE))) {
      return ValidatorEnv.GPU_RESOURCE;
    }
    return new java.util.TreeMap<>(allocatable)
        .entrySet().stream()
            .filter(e -> e.getKey().startsWith(ValidatorEnv.MIG_RESOURCE_PREFIX))
            .filter(e -> positive(e.getValue()))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(ValidatorEnv.GPU_RESOURCE);
  }

  private static boolean positive(Quantity q) {
    return q != null && Quantity.getAmountInBytes(q).signum() > 0;
  }

  static Pod workload(ValidatorConfig config) {
    return workload(config, ValidatorEnv.GPU_RESOURCE);
  }

  static Pod workload(ValidatorConfig config, String resource) {
    String suffix = UUID.randomUUID().toString().substring(0, 5);
    return new PodBuilder()
        .withNewMetadata()
        .withName(APP_LABEL + "-" + suffix)
        .withNamespace(config.namespace())
        .withLabels(Map.of("app", APP_LABEL))
        .endMetadata()
        .withNewSpec()
        .withNodeName(config.nodeName())
        .withRestartPolicy("OnFailure")
        .addNewToleration()
        .withOperator("Exists")
        .endToleration()
        .addNewContainer()
        .withName("cuda-validation")
        .withImage(config.cudaImage())
        .withCommand(command(config))
        .withNewResources()
        .withLimits(Map.of(resource, new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * The workload's command: CUDA's vectorAdd sample, or with simulated GPUs (nothing can run CUDA
   * on them) a check that the GPU it was given reached the container as a device node, which is
   * what the device plugin and the runtime's CDI injection do for a real one.
   */
  static List<String> command(ValidatorConfig config) {
    if ("simulated".equals(config.backend())) {
      return List.of("sh", "-c", SIMULATED_WORKLOAD);
    }
    return List.of("vectorAdd");
  }

  static final String SIMULATED_WORKLOAD =
      "for d in /dev/nvidia[0-9]*; do if [ -c \"$d\" ]; then echo \"GPU device $d\"; exit 0; fi;"
          + " done; echo 'no GPU device node (/dev/nvidia<N>) in the container' >&2; exit 1";

  private static String why(Pod p) {
    if (p.getStatus().getMessage() != null) {
      return p.getStatus().getMessage();
    }
    if (p.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus s : p.getStatus().getContainerStatuses()) {
        if (s.getState() != null && s.getState().getTerminated() != null) {
          var t = s.getState().getTerminated();
          return "exit code "
              + t.getExitCode()
              + (t.getMessage() == null ? "" : ": " + t.getMessage());
        }
      }
    }
    return "no reason given";
  }
}

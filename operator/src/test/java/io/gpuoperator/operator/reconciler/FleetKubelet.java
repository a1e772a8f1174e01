package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One cheap kubelet stand-in for a whole fleet of benchmark nodes (the per-node {@code
 * SimulatedKubelet} costs threads and a watch each): it registers the Nodes Ready with 8 GPUs, and
 * with one pod informer runs every pod bound to them. NVIDIA's driver container is ready after the
 * simulated install time; every other pod once its node's driver is ready; deleted pods go at once.
 * No leases: run it without the node-lifecycle controller.
 */
final class FleetKubelet implements AutoCloseable {
  private final KubernetesClient client;
  private final Set<String> nodes;
  private final Duration install;
  private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(4);
  private final Map<String, Boolean> driverReady = new ConcurrentHashMap<>();
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> driverStarted = new ConcurrentHashMap<>();
  private SharedIndexInformer<Pod> informer;

  FleetKubelet(KubernetesClient client, List<String> nodes, Duration install) {
    this.client = client;
    this.nodes = Set.copyOf(nodes);
    this.install = install;
  }

  /** Creates the Nodes (NFD GPU labels, Ready, 8 GPUs) and starts running their pods. */
  FleetKubelet start(Map<String, String> labels) {
    for (String n : nodes) {
      client
          .nodes()
          .resource(
              new NodeBuilder()
                  .withNewMetadata()
                  .withName(n)
                  .withLabels(new HashMap<>(labels))
                  .addToLabels("kubernetes.io/hostname", n)
                  .endMetadata()
                  .build())
          .create();
      String now = Instant.now().toString();
      patchStatus(
          client.nodes().withName(n),
          Map.of(
              "conditions",
              List.of(
                  new NodeConditionBuilder()
                      .withType("Ready")
                      .withStatus("True")
                      .withReason("KubeletReady")
                      .withLastHeartbeatTime(now)
                      .withLastTransitionTime(now)
                      .build()),
              "capacity",
              gpus(),
              "allocatable",
              gpus(),
              "nodeInfo",
              Map.of("containerRuntimeVersion", "containerd://1.7.24")));
      // No node-lifecycle controller to lift the taint the API server puts on new nodes.
      client
          .nodes()
          .withName(n)
          .edit(
              node -> {
                if (node.getSpec().getTaints() != null) {
                  node.getSpec()
                      .getTaints()
                      .removeIf(t -> t.getKey().startsWith("node.kubernetes.io/"));
                }
                return node;
              });
    }
    informer = client.pods().inAnyNamespace().inform(new Events(), 0);
    return this;
  }

  private static Map<String, Quantity> gpus() {
    return Map.of(
        "nvidia.com/gpu", new Quantity("8"),
        "cpu", new Quantity("32"),
        "memory", new Quantity("256Gi"),
        "pods", new Quantity("110"));
  }

  /** When each driver pod's container started (its install began), by pod name. */
  Map<String, Instant> driverStarts() {
    return driverStarted;
  }

  private final class Events implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod) {
      onUpdate(null, pod);
    }

    @Override
    public void onUpdate(Pod old, Pod pod) {
      String node = pod.getSpec().getNodeName();
      if (node == null || !nodes.contains(node)) {
        return;
      }
      String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        if (isDriver(pod)) {
          driverReady.remove(node);
        }
        timer.schedule(() -> finish(pod), 100, TimeUnit.MILLISECONDS);
        return;
      }
      if (!started.add(key)) {
        return;
      }
      if (isDriver(pod)) {
        driverStarted.put(pod.getMetadata().getName(), Instant.now());
        timer.schedule(
            () -> {
              ready(pod);
              driverReady.put(node, true);
            },
            install.toMillis(),
            TimeUnit.MILLISECONDS);
      } else {
        timer.schedule(() -> readyAfterDriver(pod), 100, TimeUnit.MILLISECONDS);
      }
    }

    @Override
    public void onDelete(Pod pod, boolean unknown) {
      started.remove(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
    }
  }

  private static boolean isDriver(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .anyMatch(c -> c.getImage() != null && c.getImage().contains("nvidia/driver"));
  }

  /** GPU clients and workloads run once the node's driver does. */
  private void readyAfterDriver(Pod pod) {
    if (Boolean.TRUE.equals(driverReady.get(pod.getSpec().getNodeName()))) {
      ready(pod);
    } else if (started.contains(
        pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName())) {
      timer.schedule(() -> readyAfterDriver(pod), 250, TimeUnit.MILLISECONDS);
    }
  }

  private void ready(Pod pod) {
    String now = Instant.now().toString();
    try {
      patchStatus(
          client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName()),
          new PodStatusBuilder()
              .withPhase("Running")
              .withStartTime(now)
              .withConditions(
                  new PodConditionBuilder()
                      .withType("Ready")
                      .withStatus("True")
                      .withLastTransitionTime(now)
                      .build())
              .build());
    } catch (KubernetesClientException e) {
      // deleted meanwhile
    }
  }

  /** Merges {@code status} into the object's status, as the kubelet writes it. */
  private static void patchStatus(Resource<?> object, Object status) {
    object
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            Serialization.asJson(Map.of("status", status)));
  }

  private void finish(Pod pod) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
    } catch (KubernetesClientException e) {
      // gone already
    }
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    timer.shutdownNow();
  }
}

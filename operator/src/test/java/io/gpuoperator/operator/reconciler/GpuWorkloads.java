package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The workloads the driver upgrade and remediation tests and benchmarks run on their GPU nodes (so
 * that a drain has GPU pods to evict), and how they read them back.
 */
final class GpuWorkloads {
  private GpuWorkloads() {}

  /**
   * A Deployment of {@code replicas} pods labelled {@code app=name}, at most one per node (pod
   * anti-affinity on the hostname), each asking for one GPU when {@code gpu}; with {@code
   * tolerateGpuTaint} they also run on nodes carrying the operator's nvidia.com/gpu taint.
   */
  static Deployment onePerNode(
      String namespace, String name, int replicas, boolean gpu, boolean tolerateGpuTaint) {
    var spec =
        new PodSpecBuilder()
            .withTerminationGracePeriodSeconds(1L)
            .withAutomountServiceAccountToken(false)
            .withContainers(container("registry.example/" + name + ":1", gpu))
            .withNewAffinity()
            .withNewPodAntiAffinity()
            .addNewRequiredDuringSchedulingIgnoredDuringExecution()
            .withTopologyKey("kubernetes.io/hostname")
            .withNewLabelSelector()
            .addToMatchLabels("app", name)
            .endLabelSelector()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endPodAntiAffinity()
            .endAffinity();
    if (tolerateGpuTaint) {
      spec.addNewToleration()
          .withKey("nvidia.com/gpu")
          .withOperator("Exists")
          .withEffect("NoSchedule")
          .endToleration();
    }
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .endMetadata()
        .withSpec(spec.build())
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A bare GPU pod train-NODE bound to the node (no controller: evicted, it stays gone). */
  static Pod pinnedPod(String namespace, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("train-" + node)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withAutomountServiceAccountToken(false)
        .withContainers(container("registry.example/train:1", true))
        .endSpec()
        .build();
  }

  /** A ReplicaSet train-NODE of one GPU pod scheduled onto the node (evicted, it comes back). */
  static ReplicaSet pinnedReplicaSet(String namespace, String node) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName("train-" + node)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withReplicas(1)
        .withNewSelector()
        .addToMatchLabels("app", "train-" + node)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "train-" + node)
        .endMetadata()
        .withNewSpec()
        .addToNodeSelector("kubernetes.io/hostname", node)
        .withTerminationGracePeriodSeconds(0L)
        .withAutomountServiceAccountToken(false)
        .withContainers(container("registry.example/train:1", true))
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** Live (not terminating) pods matching the selector, name by node. */
  static Map<String, String> livePods(KubernetesClient admin, String namespace, String selector) {
    return admin
        .pods()
        .inNamespace(namespace)
        .withLabelSelector(selector)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getSpec().getNodeName() != null)
        .collect(
            Collectors.toMap(
                p -> p.getSpec().getNodeName(), (Pod p) -> p.getMetadata().getName(), (a, b) -> a));
  }

  /** How many pods in the namespace are Running. */
  static long running(KubernetesClient admin, String namespace) {
    return admin.pods().inNamespace(namespace).list().getItems().stream()
        .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .count();
  }

  private static Container container(String image, boolean gpu) {
    var container = new ContainerBuilder().withName("main").withImage(image);
    if (gpu) {
      container
          .withNewResources()
          .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
          .endResources();
    }
    return container.build();
  }
}

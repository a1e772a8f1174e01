package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.remediation.RemediationNode;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.operator.status.DaemonSetReadiness;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/** What the ITs do in place of kubelets and the DaemonSet controller, plus test fixtures. */
final class ItCluster {
  static final Map<String, String> NFD_GPU =
      Map.of(
          "feature.node.kubernetes.io/pci-10de.present", "true",
          "feature.node.kubernetes.io/system-os_release.ID", "ubuntu",
          "feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04");
  static final Map<String, String> NFD_CPU =
      Map.of(
          "feature.node.kubernetes.io/cpu-model.vendor_id", "Intel",
          "feature.node.kubernetes.io/system-os_release.ID", "ubuntu");

  private ItCluster() {}

  /**
   * Simulated kubelets for these nodes that run every container as declared (no image is pulled),
   * restarting crashed containers after 1 s doubling to 4 s.
   */
  static io.gpuoperator.sim.kubelet.SimulatedNodes kubelets(
      io.gpuoperator.sim.controlplane.ControlPlane cp,
      List<io.gpuoperator.sim.kubelet.NodeDescription> nodes)
      throws java.io.IOException {
    return io.gpuoperator.sim.kubelet.SimulatedNodes.start(
        nodes,
        cp::nodeClient,
        (d, b) ->
            b.runners(io.gpuoperator.sim.kubelet.ContainerRunners.declaredOnly())
                .options(
                    io.gpuoperator.sim.kubelet.KubeletOptions.defaults()
                        .withBackOff(
                            java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(4))));
  }

  /**
   * Waits for each node to register, then gives it {@code gpus} GPUs in its capacity and
   * allocatable directly: for tests without a device plugin.
   */
  static void giveGpus(KubernetesClient admin, List<String> nodes, int gpus) {
    for (String n : nodes) {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> admin.nodes().withName(n).get() != null);
      admin
          .nodes()
          .withName(n)
          .subresource("status")
          .patch(
              io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                  io.fabric8.kubernetes.client.dsl.base.PatchType.STRATEGIC_MERGE),
              "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\""
                  + gpus
                  + "\"},\"allocatable\":{\"nvidia.com/gpu\":\""
                  + gpus
                  + "\"}}}");
    }
  }

  /** Closes each in order (nulls skipped), all of them even when one fails. */
  static void closeAll(AutoCloseable... all) throws Exception {
    Exception first = null;
    for (AutoCloseable c : all) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  static Node node(String name, Map<String, String> labels) {
    return Policies.node(name, labels);
  }

  /**
   * The value of the GPU fault taint remediation puts on a node, or null (as remediation reads it).
   */
  static String remediationTaint(Node n) {
    Taint t = RemediationNode.of(n, List.of()).ourTaint();
    return t == null ? null : t.getValue();
  }

  /**
   * A node's remediation state, from its label ({@code NONE} without one), as remediation reads it.
   */
  static RemediationState remediationState(Node n) {
    return RemediationNode.of(n, List.of()).state();
  }

  /** The documentation sample policy, as written (its empty strings mean "unset"). */
  static ClusterPolicy samplePolicy(String name) {
    try (InputStream in =
        ClusterPolicy.class.getResourceAsStream("/io/gpuoperator/api/samples/clusterpolicy.yaml")) {
      ClusterPolicy p = Serialization.unmarshal(in, ClusterPolicy.class);
      p.getMetadata().setName(name);
      return p;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Sets the driver version of {@link #driverOnlyPolicy}'s policy: what starts an upgrade. */
  static void upgradeDriverTo(KubernetesClient admin, String version) {
    admin
        .resources(ClusterPolicy.class)
        .withName("cluster-policy")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"driver\":{\"version\":\"" + version + "\"}}}");
  }

  /**
   * A policy named cluster-policy that deploys only the driver (550.54.15), upgrading it as {@code
   * upgradePolicy} says (the YAML body of {@code spec.driver.upgradePolicy}): what every driver
   * upgrade test and benchmark starts from.
   */
  static ClusterPolicy driverOnlyPolicy(String upgradePolicy) {
    return Serialization.unmarshal(
        """
        apiVersion: nvidia.com/v1
        kind: ClusterPolicy
        metadata:
          name: cluster-policy
        spec:
          driver:
            repository: nvcr.io/nvidia
            image: driver
            version: "550.54.15"
            upgradePolicy:
        %s  toolkit: {enabled: false}
          devicePlugin: {enabled: false}
          dcgm: {enabled: false}
          dcgmExporter: {enabled: false}
          gfd: {enabled: false}
          migManager: {enabled: false}
          nodeStatusExporter: {enabled: false}
        """
            .formatted(upgradePolicy.strip().indent(6)),
        ClusterPolicy.class);
  }

  /**
   * Plays the DaemonSet controller for one DaemonSet with {@code nodes} desired nodes: status for
   * RollingUpdate; for OnDelete also a ControllerRevision and ready pods of that revision.
   */
  static void markReady(KubernetesClient client, DaemonSet ds, List<String> nodes) {
    String ns = ds.getMetadata().getNamespace();
    if (DaemonSetReadiness.isOnDelete(ds)) {
      if (client.serviceAccounts().inNamespace(ns).withName("default").get() == null) {
        client
            .serviceAccounts()
            .inNamespace(ns)
            .resource(
                new ServiceAccountBuilder()
                    .withNewMetadata()
                    .withName("default")
                    .endMetadata()
                    .build())
            .create();
      }
      var owner =
          new OwnerReferenceBuilder()
              .withApiVersion("apps/v1")
              .withKind("DaemonSet")
              .withName(ds.getMetadata().getName())
              .withUid(ds.getMetadata().getUid())
              .withController(true)
              .build();
      String hash = "h" + ds.getMetadata().getGeneration();
      Map<String, String> selector = ds.getSpec().getSelector().getMatchLabels();
      client
          .apps()
          .controllerRevisions()
          .inNamespace(ns)
          .resource(
              new ControllerRevisionBuilder()
                  .withNewMetadata()
                  .withName(ds.getMetadata().getName() + "-" + hash)
                  .withLabels(selector)
                  .addToLabels(ReconcilerKeys.REVISION_HASH_LABEL, hash)
                  .withOwnerReferences(owner)
                  .endMetadata()
                  .withRevision(ds.getMetadata().getGeneration())
                  .withData(Map.of("spec", Map.of()))
                  .build())
          .create();
      for (String node : nodes) {
        var pod =
            client
                .pods()
                .inNamespace(ns)
                .resource(
                    new PodBuilder()
                        .withNewMetadata()
                        .withName(ds.getMetadata().getName() + "-" + node)
                        .withLabels(selector)
                        .addToLabels(ReconcilerKeys.REVISION_HASH_LABEL, hash)
                        .withOwnerReferences(owner)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .withAutomountServiceAccountToken(false)
                        .withContainers(
                            new ContainerBuilder().withName("c").withImage("driver").build())
                        .endSpec()
                        .build())
                .create();
        pod.setStatus(
            new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase("Running")
                .withConditions(
                    new PodConditionBuilder().withType("Ready").withStatus("True").build())
                .build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();
      }
    }
    markStatus(client, ds, nodes.size());
  }

  /** The DaemonSet controller's status only: every desired node updated, ready and available. */
  static void markStatus(KubernetesClient client, DaemonSet ds, int n) {
    String ns = ds.getMetadata().getNamespace();
    List<String> nodes = java.util.Collections.nCopies(n, "");
    DaemonSet live =
        client.apps().daemonSets().inNamespace(ns).withName(ds.getMetadata().getName()).get();
    live.setStatus(
        new DaemonSetStatusBuilder()
            .withObservedGeneration(live.getMetadata().getGeneration())
            .withDesiredNumberScheduled(nodes.size())
            .withCurrentNumberScheduled(nodes.size())
            .withUpdatedNumberScheduled(nodes.size())
            .withNumberAvailable(nodes.size())
            .withNumberReady(nodes.size())
            .withNumberMisscheduled(0)
            .build());
    client.apps().daemonSets().inNamespace(ns).resource(live).updateStatus();
  }
}

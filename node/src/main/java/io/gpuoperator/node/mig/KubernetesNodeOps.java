package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.node.agent.HostedAgents;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link NodeOps} through the API server: merge patches of the Node, pods by field selector.
 *
 * @param namespace where the GPU clients' pods run (the operator's)
 */
public record KubernetesNodeOps(KubernetesClient client, String nodeName, String namespace)
    implements NodeOps {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesNodeOps.class);

  /** Nodes are cluster-scoped; their Events live here, as the kubelet's do. */
  static final String EVENT_NAMESPACE = "default";

  @Override
  public Map<String, String> labels() {
    Node n = client.nodes().withName(nodeName).get();
    if (n == null) {
      throw new IllegalStateException("node " + nodeName + " not found");
    }
    Map<String, String> labels = n.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  @Override
  public void patchLabels(Map<String, String> labels) {
    Map<String, Object> values = new HashMap<>(labels); // null removes
    String patch = Serialization.asJson(Map.of("metadata", Map.of("labels", values)));
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, nodeName))
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    LOG.info("node {}: labels {}", nodeName, labels);
  }

  /**
   * Deletes the pods one by one: a collection delete needs {@code deletecollection}, which the MIG
   * manager's role does not grant (a real node found it; in-process agents had the admin's rights).
   */
  @Override
  public void deletePods(List<String> apps) {
    for (Pod p : pods(apps)) {
      client.pods().inNamespace(namespace).withName(p.getMetadata().getName()).delete();
    }
  }

  /** The pods of these apps on this node. */
  private List<Pod> pods(List<String> apps) {
    return client
        .pods()
        .inNamespace(namespace)
        .withLabelIn("app", apps.toArray(String[]::new))
        .withField("spec.nodeName", nodeName)
        .list()
        .getItems();
  }

  @Override
  public boolean awaitPodsGone(List<String> apps, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<Pod> left = pods(apps);
      if (left.isEmpty()) {
        // Clients hosted by node-agents in this JVM have no pod of their own: they are stopped
        // by its supervisor once it sees their paused deploy labels.
        Duration rest = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        return HostedAgents.awaitStopped(nodeName, this::labels, rest);
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      LOG.info(
          "node {}: waiting for {} GPU client pod(s) to terminate: {}",
          nodeName,
          left.size(),
          left.stream().map(p -> p.getMetadata().getName()).toList());
      Thread.sleep(1000);
    }
  }

  @Override
  public void event(String type, String reason, String message) {
    Node n = client.nodes().withName(nodeName).get();
    String now = Instant.now().toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(EVENT_NAMESPACE)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(nodeName + ".mig-")
                  .withNamespace(EVENT_NAMESPACE)
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(nodeName)
                  .withUid(n == null ? null : n.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType(type)
                  .withReason(reason)
                  .withMessage(message.length() > 1024 ? message.substring(0, 1024) : message)
                  .withNewSource()
                  .withComponent("nvidia-mig-manager")
                  .withHost(nodeName)
                  .endSource()
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (RuntimeException e) {
      LOG.warn("node {}: could not record event {}: {}", nodeName, reason, e.getMessage());
    }
  }
}

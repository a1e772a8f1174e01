package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated kubelet's Node object: registers it, and keeps its conditions (Ready ...) posted the
 * way a kubelet does, only when they differ from the API server's or the report interval is due.
 */
final class NodeStatusHeartbeat {
  private static final Logger LOG = LoggerFactory.getLogger(NodeStatusHeartbeat.class);

  private final KubernetesClient client;
  private final NodeDescription description;
  private final int index;
  private final NodeCache nodeCache;
  private final KubeletOptions options;
  private final BooleanSupplier running;
  private volatile Instant lastStatus = Instant.EPOCH;

  /**
   * @param nodeCache the shared watch of every Node, or null to GET the node
   * @param running whether the kubelet runs (a killed kubelet posts nothing)
   */
  NodeStatusHeartbeat(
      KubernetesClient client,
      NodeDescription description,
      int index,
      NodeCache nodeCache,
      KubeletOptions options,
      BooleanSupplier running) {
    this.client = client;
    this.description = description;
    this.index = index;
    this.nodeCache = nodeCache;
    this.options = options;
    this.running = running;
  }

  private String nodeName() {
    return description.name();
  }

  /** Creates the Node, or (a restart) posts every condition with a fresh heartbeat. */
  void register() {
    Instant now = Instant.now();
    Node existing = client.nodes().withName(nodeName()).get();
    if (existing == null) {
      client.nodes().resource(NodeModel.node(description, index, now)).create();
      lastStatus = now;
      LOG.info("node {} registered", nodeName());
    } else {
      patchStatus(NodeModel.status(description, index, now, now));
      lastStatus = now;
      LOG.info("node {} status recovered", nodeName());
    }
  }

  /**
   * As the kubelet's nodeStatusUpdateFrequency: compares the conditions with what the API server
   * holds and posts them when they differ (e.g. Ready=Unknown set by the node-lifecycle controller
   * after an outage) or when the report interval has passed. Failures are logged: the next tick
   * tries again.
   */
  void syncQuietly() {
    if (!running.getAsBoolean()) {
      return;
    }
    try {
      Node node =
          nodeCache != null ? nodeCache.get(nodeName()) : client.nodes().withName(nodeName()).get();
      Instant now = Instant.now();
      Instant since = now;
      List<NodeCondition> current =
          node == null || node.getStatus() == null || node.getStatus().getConditions() == null
              ? List.of()
              : node.getStatus().getConditions();
      for (NodeCondition c : current) {
        if (c.getType().equals("Ready") && c.getStatus().equals("True")) {
          since = Instant.parse(c.getLastTransitionTime());
        }
      }
      List<NodeCondition> wanted = NodeModel.conditions(now, since);
      boolean differs = !sameStatuses(current, wanted);
      boolean due = now.isAfter(lastStatus.plus(options.statusInterval()));
      if (!differs && !due) {
        return;
      }
      NodeStatus status = new NodeStatus();
      status.setConditions(wanted);
      patchStatus(status);
      lastStatus = now;
      if (differs) {
        LOG.info("node {}: status re-posted (the API server's differed)", nodeName());
      }
    } catch (RuntimeException e) {
      LOG.warn("node {}: status heartbeat failed: {}", nodeName(), e.toString());
    }
  }

  /** True when every wanted condition is in {@code current} with the same status. */
  static boolean sameStatuses(List<NodeCondition> current, List<NodeCondition> wanted) {
    for (NodeCondition w : wanted) {
      boolean found =
          current.stream()
              .anyMatch(
                  c -> c.getType().equals(w.getType()) && c.getStatus().equals(w.getStatus()));
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private void patchStatus(NodeStatus status) {
    String patch = "{\"status\":" + Serialization.asJson(status) + "}";
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, nodeName()))
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
  }
}

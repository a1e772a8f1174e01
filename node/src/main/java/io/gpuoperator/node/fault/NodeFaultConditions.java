package io.gpuoperator.node.fault;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.PatchTarget;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the GPU fault conditions into a Node's status: one strategic-merge patch of the status
 * subresource keyed by condition type, so the kubelet's conditions (Ready, MemoryPressure ...) and
 * anyone else's stay as they are. Writes only what changed: at once when a condition's status,
 * reason, GPUs or XIDs change, and a message that differs only in counts and times at most every
 * {@link #REFRESH_MILLIS}. Not thread-safe: {@link GpuFaultReporter} calls it from its lane.
 */
public final class NodeFaultConditions {
  /** How often a condition whose message only advanced (counts, last seen) is rewritten. */
  static final long REFRESH_MILLIS = 30_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final String nodeName;
  private final Map<String, Written> written = new HashMap<>();

  private record Written(
      String status, String identity, String message, String transition, long at) {}

  public NodeFaultConditions(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  /** The node's conditions of our types, as they are now; remembered as written. */
  public List<NodeCondition> read() {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IllegalStateException("Node/" + nodeName + " does not exist");
    }
    List<NodeCondition> ours = new ArrayList<>();
    if (node.getStatus() != null && node.getStatus().getConditions() != null) {
      for (NodeCondition c : node.getStatus().getConditions()) {
        if (FaultClass.ofConditionType(c.getType()) != null) {
          ours.add(c);
          written.put(
              c.getType(),
              new Written(c.getStatus(), null, c.getMessage(), c.getLastTransitionTime(), 0));
        }
      }
    }
    return ours;
  }

  /**
   * Writes the answer to a GPU reset request: the {@link GpuFaultContract#RESET_CONDITION}
   * condition, True when every faulty GPU was reset, its message starting with the request's token.
   */
  public void writeResetAnswer(String token, boolean done, String detail, long now) {
    Map<String, Object> cond = new LinkedHashMap<>();
    cond.put("type", GpuFaultContract.RESET_CONDITION);
    cond.put("status", done ? FaultCondition.TRUE : FaultCondition.FALSE);
    cond.put("reason", done ? GpuFaultContract.RESET_DONE : GpuFaultContract.RESET_FAILED);
    cond.put("message", GpuFaultContract.answerPrefix(token) + " " + detail);
    cond.put("lastHeartbeatTime", FaultCondition.time(now));
    cond.put("lastTransitionTime", FaultCondition.time(now));
    patchConditions(List.of(cond));
  }

  /** Patches the conditions that changed; true when it wrote. */
  public boolean write(List<FaultCondition> desired, long now) {
    List<Map<String, Object>> patch = new ArrayList<>();
    Map<String, Written> next = new HashMap<>();
    for (FaultCondition c : desired) {
      Written w = written.get(c.type());
      boolean sameStatus = w != null && c.status().equals(w.status());
      if (sameStatus
          && (c.identity().equals(w.identity())
              && (c.message().equals(w.message()) || now - w.at() < REFRESH_MILLIS))) {
        continue;
      }
      if (w != null
          && w.identity() == null
          && sameStatus
          && c.status().equals(FaultCondition.FALSE)) {
        continue; // False before a restart and False now: nothing to say
      }
      String transition =
          sameStatus && w.transition() != null ? w.transition() : FaultCondition.time(now);
      Map<String, Object> cond = new LinkedHashMap<>();
      cond.put("type", c.type());
      cond.put("status", c.status());
      cond.put("reason", c.reason());
      cond.put("message", c.message());
      cond.put(
          "lastHeartbeatTime",
          FaultCondition.time(c.lastSeenMillis() > 0 ? c.lastSeenMillis() : now));
      cond.put("lastTransitionTime", transition);
      patch.add(cond);
      next.put(c.type(), new Written(c.status(), c.identity(), c.message(), transition, now));
    }
    if (patch.isEmpty()) {
      return false;
    }
    patchConditions(patch);
    written.putAll(next);
    return true;
  }

  // A strategic merge of the status: the API server merges conditions by type, so the node's other
  // conditions (the kubelet's) stay as they are.
  private void patchConditions(List<Map<String, Object>> conditions) {
    String body;
    try {
      body = JSON.writeValueAsString(Map.of("status", Map.of("conditions", conditions)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, nodeName))
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), body);
  }
}

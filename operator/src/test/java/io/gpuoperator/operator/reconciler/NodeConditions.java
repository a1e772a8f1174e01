package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Node conditions written as the node's device plugin writes them (a strategic merge of the node's
 * status, merged by type), for the remediation tests and benchmark.
 */
final class NodeConditions {
  private NodeConditions() {}

  /** One condition, heartbeat and transition now. */
  static Map<String, Object> condition(String type, String status, String reason, String message) {
    String now = Instant.now().toString();
    return Map.of(
        "type", type,
        "status", status,
        "reason", reason,
        "message", message,
        "lastHeartbeatTime", now,
        "lastTransitionTime", now);
  }

  @SafeVarargs
  static void write(KubernetesClient admin, String node, Map<String, Object>... conditions) {
    admin
        .nodes()
        .withName(node)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            Serialization.asJson(Map.of("status", Map.of("conditions", List.of(conditions)))));
  }

  static void write(
      KubernetesClient admin,
      String node,
      String type,
      String status,
      String reason,
      String message) {
    write(admin, node, condition(type, status, reason, message));
  }
}

package io.gpuoperator.operator.remediation;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.operator.upgrade.UpgradeViews;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What remediation reads of one node. Pure.
 *
 * @param fault the most severe fault condition type that is True, or null
 * @param faultMessage that condition's message (GPUs, XIDs, times), or null
 * @param resetAnswer the agent's {@code GpuReset} condition, or null
 * @param validatorPods the operator-validator pods on the node
 * @param validatorReady every one of them is Ready (none: true)
 */
public record RemediationNode(
    String name,
    Map<String, String> labels,
    Map<String, String> annotations,
    List<Taint> taints,
    boolean unschedulable,
    boolean ready,
    String fault,
    String faultMessage,
    NodeCondition resetAnswer,
    int validatorPods,
    boolean validatorReady) {

  public static RemediationNode of(Node node, List<Pod> validators) {
    List<NodeCondition> conditions =
        node.getStatus() == null || node.getStatus().getConditions() == null
            ? List.of()
            : node.getStatus().getConditions();
    String fault = null;
    String message = null;
    for (String type : GpuFaultContract.FAULT_TYPES) {
      NodeCondition c = condition(conditions, type);
      if (c != null && "True".equals(c.getStatus())) {
        fault = type;
        message = c.getMessage();
        break;
      }
    }
    var meta = node.getMetadata();
    return new RemediationNode(
        meta.getName(),
        meta.getLabels() == null ? Map.of() : meta.getLabels(),
        meta.getAnnotations() == null ? Map.of() : meta.getAnnotations(),
        node.getSpec() == null || node.getSpec().getTaints() == null
            ? List.of()
            : node.getSpec().getTaints(),
        UpgradeViews.unschedulable(node),
        UpgradeViews.ready(node),
        fault,
        message,
        condition(conditions, GpuFaultContract.RESET_CONDITION),
        validators.size(),
        validators.stream()
            .allMatch(
                p -> p.getMetadata().getDeletionTimestamp() == null && UpgradeViews.podReady(p)));
  }

  private static NodeCondition condition(List<NodeCondition> all, String type) {
    return all.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /** This view with the validator facts of another (a patched node carries no pods). */
  public RemediationNode withValidator(RemediationNode other) {
    return new RemediationNode(
        name,
        labels,
        annotations,
        taints,
        unschedulable,
        ready,
        fault,
        faultMessage,
        resetAnswer,
        other.validatorPods,
        other.validatorReady);
  }

  public RemediationState state() {
    return RemediationState.of(labels.get(RemediationKeys.STATE));
  }

  public boolean faulty() {
    return fault != null;
  }

  /** An annotation holding epoch seconds, or null when absent or malformed. */
  public Instant time(String annotation) {
    String v = annotations.get(annotation);
    if (v == null) {
      return null;
    }
    try {
      return Instant.ofEpochSecond(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Our taint, or null. */
  public Taint ourTaint() {
    return taints.stream()
        .filter(t -> RemediationKeys.TAINT.equals(t.getKey()))
        .findFirst()
        .orElse(null);
  }

  /**
   * The agent's answer to the reset request {@code token}: true done, false failed, null none yet
   * (or an answer to an earlier request).
   */
  public Boolean resetAnswered(String token) {
    if (token == null
        || resetAnswer == null
        || resetAnswer.getMessage() == null
        || !resetAnswer.getMessage().startsWith(GpuFaultContract.answerPrefix(token))) {
      return null;
    }
    return "True".equals(resetAnswer.getStatus());
  }
}

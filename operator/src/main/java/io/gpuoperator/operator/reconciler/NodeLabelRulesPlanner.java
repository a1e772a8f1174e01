package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.labels.NodeLabelChange;
import io.gpuoperator.operator.labels.NodeLabelRules;
import java.util.Optional;

/** The production planner: {@link NodeLabelRules} as one merge patch per node. */
public final class NodeLabelRulesPlanner implements NodeLabelPlanner {
  @Override
  public Optional<String> mergePatch(Node node, ClusterPolicy policy) {
    NodeLabelChange change = NodeLabelRules.change(node, policy);
    return change.isEmpty() ? Optional.empty() : Optional.of(change.toMergePatchJson());
  }
}

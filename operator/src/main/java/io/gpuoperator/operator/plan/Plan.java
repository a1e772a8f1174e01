package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.NodeLabelChange;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What the operator would do for a policy: the object diff per operand and, per node, the labels
 * and taint it would carry. Pure: inputs are the policy, nodes, facts and live objects.
 *
 * @param operands every operand as rendered, in deployment order
 * @param objects the object diff, in deployment order (deletes last)
 * @param nodes one entry per node, in input order
 */
public record Plan(
    ClusterPolicy policy,
    ClusterFacts facts,
    List<RenderedOperand> operands,
    List<ObjectDiff.Entry> objects,
    List<NodeEntry> nodes) {

  /** One node's outcome. */
  public record NodeEntry(String name, NodeLabelRules.Desired desired, NodeLabelChange change) {}

  /**
   * Builds the plan.
   *
   * @throws io.gpuoperator.operator.validation.PolicyValidationException when the policy cannot be
   *     rendered
   */
  public static Plan build(
      ClusterPolicy policy,
      Collection<Node> nodes,
      ClusterFacts facts,
      OperatorConfig config,
      Collection<HasMetadata> live) {
    List<RenderedOperand> rendered = Operands.renderAll(policy, facts, config);
    List<ObjectDiff.Entry> diff = ObjectDiff.diff(rendered, live);
    List<NodeEntry> nodeEntries = new ArrayList<>();
    for (Node n : nodes) {
      nodeEntries.add(
          new NodeEntry(
              n.getMetadata().getName(),
              NodeLabelRules.desired(n, policy),
              NodeLabelRules.change(n, policy)));
    }
    return new Plan(policy, facts, rendered, diff, nodeEntries);
  }

  /** Number of entries with the action. */
  public long count(ObjectDiff.Action action) {
    return objects.stream().filter(e -> e.action() == action).count();
  }
}

package io.gpuoperator.operator.reconciler;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/** The production renderer: {@link PolicyValidator} and the {@link Operands} registry. */
public final class OperandRegistryRenderer implements PolicyRenderer {
  @Override
  public List<Violation> validate(ClusterPolicy policy) {
    return Operands.validate(policy);
  }

  @Override
  public List<RenderedOperand> render(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    return Operands.renderAll(policy, facts, config);
  }
}

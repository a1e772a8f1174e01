package io.gpuoperator.operator.reconciler;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;

/**
 * What the ClusterPolicy reconciler applies: the policy's cross-field validation and its operands
 * in deployment order. Production uses the operand registry; tests can pass small operands of their
 * own.
 */
public interface PolicyRenderer {
  /** Violations the schema cannot catch; empty when the policy is valid. */
  List<Violation> validate(ClusterPolicy policy);

  /**
   * Every operand, enabled or not, in deployment order.
   *
   * @throws io.gpuoperator.operator.validation.PolicyValidationException naming the field when the
   *     policy cannot be rendered
   */
  List<RenderedOperand> render(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config);
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import java.util.List;

/**
 * Turns a ClusterPolicy and facts about the cluster into one operand's Kubernetes objects. Pure: no
 * client, no I/O besides reading its own manifests from the classpath.
 */
public interface OperandModel {
  /** The operand's name, e.g. "driver", "device-plugin"; also the suffix of its deploy label. */
  String name();

  /** Whether the policy deploys this operand at all (disabled operands are deleted). */
  boolean enabled(ClusterPolicy policy, ClusterFacts facts);

  /**
   * The objects to apply, in manifest order, each with namespace, labels and owner-independent
   * content set. Owner references are added by the reconciler.
   *
   * @throws io.gpuoperator.operator.validation.PolicyValidationException when the policy cannot be
   *     rendered (for example a half-set image triple), naming the field
   */
  List<HasMetadata> render(ClusterPolicy policy, ClusterFacts facts, OperatorConfig config);
}

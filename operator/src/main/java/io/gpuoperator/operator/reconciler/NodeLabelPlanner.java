package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.v1.ClusterPolicy;
import java.util.Optional;

/** Decides what one node's operator-owned labels and GPU taint must become under a policy. */
@FunctionalInterface
public interface NodeLabelPlanner {
  /**
   * The JSON merge patch that brings the node to its desired labels and taint in one write, or
   * empty when the node already matches.
   */
  Optional<String> mergePatch(Node node, ClusterPolicy policy);
}

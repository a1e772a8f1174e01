package io.gpuoperator.operator.remediation;

import java.util.List;

/**
 * The cluster-wide limits of one pass, from every GPU node: how many are faulty against the circuit
 * breaker's limit, how many are in remediation against maxConcurrent, and so how many may start
 * now. The one place these counts are made: the remediation controller acts on them and the
 * ClusterPolicy's {@code RemediationPaused} condition reports them. Pure.
 *
 * @param gpuNodes GPU nodes in the cluster
 * @param faulty GPU nodes with a fault condition True
 * @param faultyLimit the breaker opens above this many
 * @param inProgress nodes between taint and back in service
 * @param concurrent maxConcurrent for this cluster
 */
public record RemediationBudget(
    int gpuNodes, int faulty, int faultyLimit, int inProgress, int concurrent) {

  public static RemediationBudget of(RemediationSettings s, List<RemediationNode> gpuNodes) {
    int faulty = (int) gpuNodes.stream().filter(RemediationNode::faulty).count();
    int inProgress = (int) gpuNodes.stream().filter(n -> n.state().inProgress()).count();
    return new RemediationBudget(
        gpuNodes.size(),
        faulty,
        s.faultyLimit(gpuNodes.size()),
        inProgress,
        s.concurrent(gpuNodes.size()));
  }

  /** More nodes are faulty than maxFaultyNodes: no node starts remediation. */
  public boolean breakerOpen() {
    return faulty > faultyLimit;
  }

  /** How many nodes may start remediation now. */
  public int startable() {
    return breakerOpen() ? 0 : Math.max(0, concurrent - inProgress);
  }

  /** A sentence for the ClusterPolicy condition and the logs. */
  public String describe() {
    String counts =
        faulty
            + " of "
            + gpuNodes
            + " GPU nodes have a GPU fault (maxFaultyNodes allows "
            + faultyLimit
            + "); "
            + inProgress
            + " in remediation (maxConcurrent "
            + concurrent
            + ")";
    return breakerOpen()
        ? counts
            + ": no node starts remediation (a fault on this many nodes at once is likely"
            + " cluster-wide; nodes already in remediation go on)"
        : counts;
  }
}

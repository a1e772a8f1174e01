package io.gpuoperator.node.mig;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What the MIG manager does to its own Node and the pods on it. */
public interface NodeOps {
  /** The node's current labels. */
  Map<String, String> labels();

  /** Sets labels in one patch; a null value removes the label. */
  void patchLabels(Map<String, String> labels);

  /** Deletes the pods on this node whose {@code app} label is one of these. */
  void deletePods(List<String> apps);

  /**
   * Waits until no pod on this node has one of these {@code app} labels, and no agent that {@code
   * gpu-operator node-agents} hosts in this JVM on this node still runs although the node's labels
   * stop it ({@code HostedAgents}); false when the timeout passed first.
   */
  boolean awaitPodsGone(List<String> apps, Duration timeout) throws InterruptedException;

  /** Records an Event on the Node ({@code Normal} or {@code Warning}). */
  void event(String type, String reason, String message);
}

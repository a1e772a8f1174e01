package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Prepares what a pod's containers need before they start and releases it after they stopped, as
 * the kubelet does for Dynamic Resource Allocation ({@code PrepareResources} in {@code SyncPod},
 * {@code UnprepareResources} once the pod is terminated). Unlike an admission refusal, a pod that
 * is not prepared yet stays Pending and is tried again.
 */
public interface PodPreparer {

  /** Null when the pod's containers may start; otherwise why not yet (the pod waits). */
  String prepare(Pod pod);

  /** The pod's containers stopped for good (finished or deleted); release what it held. */
  void unprepare(Pod pod);
}

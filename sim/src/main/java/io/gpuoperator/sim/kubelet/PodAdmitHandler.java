package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Lets another part of the simulated kubelet (e.g. the device manager allocating GPUs) accept or
 * refuse a pod before its containers start, and hear when the pod is gone.
 */
public interface PodAdmitHandler {

  /** Null to admit the pod; otherwise why it fails (the pod's status reason and message). */
  Refusal admit(Pod pod);

  /** The pod was deleted or finished; release what was allocated to it. */
  default void podRemoved(Pod pod) {}

  /**
   * Why a pod was refused, e.g. {@code OutOfnvidia.com/gpu} or {@code UnexpectedAdmissionError}.
   */
  record Refusal(String reason, String message) {}
}

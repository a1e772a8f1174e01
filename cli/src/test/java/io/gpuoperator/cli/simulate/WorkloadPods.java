package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

/** The workload pods the simulation ITs schedule: a training container asking for GPUs. */
public final class WorkloadPods {
  private WorkloadPods() {}

  /** A pod asking for {@code gpus} nvidia.com/gpu, pinned to {@code node} where not null. */
  public static Pod gpuPod(String name, int gpus, String node) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withImage("nvcr.io/nvidia/pytorch:24.05-py3")
            .withNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
            .endResources()
            .endContainer()
            .endSpec();
    if (node != null) {
      b.editSpec().addToNodeSelector("kubernetes.io/hostname", node).endSpec();
    }
    return b.build();
  }

  /** The pod's phase; null while it has no status or where it is gone. */
  static String phase(Pod p) {
    return p == null || p.getStatus() == null ? null : p.getStatus().getPhase();
  }
}

package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
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

  /**
   * Asserts that the scheduler placed the pod nowhere: Pending, on no node, its PodScheduled
   * condition Unschedulable with a message that says {@code why}.
   */
  static void assertUnschedulable(Pod p, String why) {
    assertThat(phase(p)).isEqualTo("Pending");
    assertThat(p.getSpec().getNodeName()).isNull();
    assertThat(p.getStatus().getConditions())
        .anySatisfy(
            c -> {
              assertThat(c.getType()).isEqualTo("PodScheduled");
              assertThat(c.getReason()).isEqualTo("Unschedulable");
              assertThat(c.getMessage()).contains(why);
            });
  }

  /**
   * A pod placed on {@code node} as a DaemonSet's is (by name, not by the scheduler): {@code main}
   * after the {@code init} containers.
   */
  static Pod placedPod(String name, String node, Container main, Container... init) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withInitContainers(init)
        .withContainers(main)
        .endSpec()
        .build();
  }
}

package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.validator.ValidatorEnv;
import java.util.Set;

/**
 * Simulated hardware on real nodes ({@code SIMULATED_HARDWARE_DIR}): every container that runs one
 * of our agents gets the simulated GPU backend over the node profile in that host folder, mounted
 * read-only at the same path, so each node's GPUs are what its own {@code node-profile.yaml} says.
 * The stack then runs on real kubelets and container runtimes without GPUs (the real-node suite);
 * without the setting nothing changes and the agents use NVML. The validator's CUDA workload, which
 * cannot run CUDA on simulated GPUs, runs the validator's own image (unless the policy names a
 * {@code CUDA_WORKLOAD_IMAGE}) and checks that its GPU reached it.
 */
final class SimulatedHardware {
  static final String VOLUME = "simulated-hardware";

  private static final String VALIDATOR = "validator";

  private SimulatedHardware() {}

  /** Adds the backend's env and the folder's mount to our agents' containers in {@code pod}. */
  static void apply(PodSpec pod, String hostDir, Set<String> agents) {
    if (hostDir == null) {
      return;
    }
    boolean any = false;
    for (Container c : DaemonSets.allContainers(pod)) {
      if (!runsAgent(c, agents)) {
        continue;
      }
      any = true;
      DaemonSets.setEnv(c, NodeAgentOptions.BACKEND.env().get(0), "simulated");
      DaemonSets.setEnv(
          c,
          NodeAgentOptions.NODE_PROFILE.env().get(0),
          hostDir + "/" + HardwareProfiles.DRIVER_ROOT_PROFILE);
      if (VALIDATOR.equals(c.getArgs().get(0))
          && DaemonSets.env(c, ValidatorEnv.CUDA_WORKLOAD_IMAGE) == null) {
        DaemonSets.setEnv(c, ValidatorEnv.CUDA_WORKLOAD_IMAGE, c.getImage());
      }
      if (c.getVolumeMounts() == null
          || c.getVolumeMounts().stream().noneMatch(m -> VOLUME.equals(m.getName()))) {
        DaemonSets.mount(
            c,
            new VolumeMountBuilder()
                .withName(VOLUME)
                .withMountPath(hostDir)
                .withReadOnly(true)
                .build());
      }
    }
    if (any && DaemonSets.volume(pod, VOLUME) == null) {
      DaemonSets.addVolume(
          pod,
          new VolumeBuilder()
              .withName(VOLUME)
              .withNewHostPath()
              .withPath(hostDir)
              .withType("Directory")
              .endHostPath()
              .build());
    }
  }

  /** Our image running one of this binary's subcommands (not a shell step of the pod). */
  private static boolean runsAgent(Container c, Set<String> agents) {
    if (!OperandImages.isProjectImage(c.getImage())
        || c.getCommand() != null && !c.getCommand().isEmpty()) {
      return false;
    }
    return c.getArgs() != null && !c.getArgs().isEmpty() && agents.contains(c.getArgs().get(0));
  }
}

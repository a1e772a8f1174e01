package io.gpuoperator.sim.kubelet;

/**
 * Runs one simulated container: either declared behaviour (delays, exit codes, marker files) or
 * this project's real agent code in-process. Chosen per container by {@link ContainerRunners}.
 */
public interface ContainerRunner {

  /** Starts the container and returns at once; the process reports readiness and exit itself. */
  ContainerProcess start(ContainerContext ctx);
}

package io.gpuoperator.sim.kubelet;

/**
 * This project's real agent code, run in-process as a simulated container (e.g. {@code validator
 * --component driver}). It returns the container's exit code; it is interrupted when the container
 * is killed.
 */
@FunctionalInterface
public interface InProcessAgent {

  /** Runs the agent to completion; long-running agents call {@link AgentContext#markReady()}. */
  int run(AgentContext ctx) throws Exception;
}

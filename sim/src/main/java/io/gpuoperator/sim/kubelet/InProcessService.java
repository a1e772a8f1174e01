package io.gpuoperator.sim.kubelet;

/**
 * A long-running in-process agent that holds no thread while it runs: {@link #start} sets it up
 * (its loops on the JVM's shared agent threads, its servers on shared event loops) and returns what
 * stops it. A simulator runs hundreds of nodes' agents in one JVM, and a thread per agent that only
 * waited to be killed was most of its threads (700 of 1,404 at 200 nodes).
 *
 * <p>The kubelet calls {@link #start} on a shared pool and closes the result when the container is
 * killed; an exception from {@code start} is the container's exit 1. Hosts that need the blocking
 * form (the {@code node-agents} supervisor, an entrypoint that waits for its marker files first)
 * call {@link #run}, which starts, waits for an interrupt and closes.
 */
@FunctionalInterface
public interface InProcessService extends InProcessAgent {

  /**
   * Starts the agent; the result stops it, or is null when the agent has already finished (a
   * one-shot run: the container exits 0). Long-running agents call {@link
   * AgentContext#markReady()}.
   */
  AutoCloseable start(AgentContext ctx) throws Exception;

  @Override
  default int run(AgentContext ctx) throws Exception {
    AutoCloseable started = start(ctx);
    if (started == null) {
      return 0;
    }
    try (AutoCloseable running = started) {
      Thread.sleep(Long.MAX_VALUE); // until the container is killed (interrupt)
      return 0;
    }
  }
}

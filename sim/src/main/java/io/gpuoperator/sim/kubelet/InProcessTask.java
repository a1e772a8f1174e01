package io.gpuoperator.sim.kubelet;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A one-shot in-process agent that holds no thread while it waits (a validator step polling marker
 * files, watching for its workload pod): {@link #begin} starts it and returns its exit code to
 * come. A simulator runs hundreds of them at once, and a thread each that only waited was most of
 * the threads at the busiest moment of a rollout (144 of 387 at 200 nodes).
 *
 * <p>The kubelet calls {@link #begin} on a small shared pool ({@link KubeletThreads#checks()}), so
 * a begin must not wait (a parse, a file read, starting the work is fine; a program that must first
 * wait for marker files runs as a plain agent). The container exits with the future's code, 1 when
 * it completes exceptionally; a kill cancels the future (the agent then stops waiting and cleans
 * up) and the container exits 137. Hosts that need the blocking form call {@link #run}.
 */
@FunctionalInterface
public interface InProcessTask extends InProcessAgent {

  /** Starts the agent; the future completes with its exit code. */
  CompletableFuture<Integer> begin(AgentContext ctx) throws Exception;

  /** Begins and waits for the exit code; an interrupt cancels the task. */
  @Override
  default int run(AgentContext ctx) throws Exception {
    CompletableFuture<Integer> code = begin(ctx);
    try {
      return code.get();
    } catch (InterruptedException e) {
      code.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }
}

package io.gpuoperator.node.agent;

import java.util.concurrent.CountDownLatch;

/**
 * How a long-running agent that releases its resources in a JVM shutdown hook also releases them
 * when it is stopped inside a running JVM: {@code gpu-operator node-agents} stops a hosted agent by
 * interrupting its thread (its node's deploy label no longer admits it), and a device or DRA plugin
 * left registered would keep its resources advertised.
 */
public final class StopHooks {
  private StopHooks() {}

  /**
   * Waits until {@code done} (counted down by the shutdown hook {@code stop}); when interrupted,
   * removes the hook and runs it now, then rethrows.
   */
  public static void awaitOrRelease(CountDownLatch done, Thread stop) throws InterruptedException {
    try {
      done.await();
    } catch (InterruptedException e) {
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException shuttingDown) {
        throw e; // the JVM is stopping: the hook runs anyway
      }
      stop.run();
      throw e;
    }
  }
}

package io.gpuoperator.sim.controlplane;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the simulator's shared pools: daemons (nothing has to stop them for the JVM to exit)
 * named {@code <prefix><n>}, so a thread dump says which pool a thread belongs to.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  public static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}

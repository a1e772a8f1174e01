package io.gpuoperator.operator.runtime;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator's thread pools: at most a fixed number of threads, started only when work is queued
 * and ended after {@link #IDLE} without any, so that an idle operator holds few threads (the
 * libraries' defaults are cached pools that grow with every burst of watches or patches, and fixed
 * pools that keep all their threads forever: 166 threads at 1,000 nodes, BENCHMARKS.md).
 */
public final class ThreadPools {
  /** How long a pool thread waits for work before it ends. */
  public static final Duration IDLE = Duration.ofSeconds(10);

  private ThreadPools() {}

  /**
   * Up to {@code threads} daemon threads named {@code name-N}; work beyond them queues (unbounded),
   * as in a fixed pool.
   */
  public static ThreadPoolExecutor bounded(String name, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException(name + ": threads must be at least 1, got " + threads);
    }
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            IDLE.toMillis(),
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-" + count.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}

package io.gpuoperator.operator.runtime;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
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
    checkThreads(name, threads);
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            IDLE.toMillis(),
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            daemons(name));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Up to {@code threads} daemon threads named {@code name-N}; a task that finds them all busy runs
   * in the thread that submits it instead of waiting in a queue. For work that waits for other work
   * of the same pool (JOSDK starts its controllers on one pool and each controller starts its event
   * sources on the same pool, waiting for all of them): queued, that could wait forever once every
   * thread waits. After shutdown, tasks are rejected.
   */
  public static ThreadPoolExecutor callerRuns(String name, int threads) {
    checkThreads(name, threads);
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            0,
            threads,
            IDLE.toMillis(),
            TimeUnit.MILLISECONDS,
            new SynchronousQueue<>(),
            daemons(name),
            (task, executor) -> {
              if (executor.isShutdown()) {
                throw new RejectedExecutionException(name + " is shut down");
              }
              task.run();
            });
    return pool;
  }

  private static void checkThreads(String name, int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException(name + ": threads must be at least 1, got " + threads);
    }
  }

  private static java.util.concurrent.ThreadFactory daemons(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}

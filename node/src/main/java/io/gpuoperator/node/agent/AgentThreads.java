package io.gpuoperator.node.agent;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every agent loop of the JVM runs on ({@link AgentLane}): one timer that only hands
 * due tasks on, and a pool that grows with the tasks running at once and whose threads end after 30
 * s idle.
 *
 * <p>Why shared: a node-agents process serves one node, so there this costs what a thread per loop
 * did. The simulator runs every node's agents in one JVM, and a thread per loop per node (the
 * device plugin's supervisor, health and config loops, the exporter's collector and XID watch)
 * meant thousands of threads each waking on its own timer, most of the JVM's system time at 1,000
 * nodes. A pass that blocks (a socket dial, a slow GPU call) holds one pool thread and delays no
 * other loop: the pool grows instead.
 */
public final class AgentThreads {
  private static final ScheduledExecutorService TIMER = timer();
  private static final ExecutorService WORKERS =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          daemons("agent-worker-"));

  private AgentThreads() {}

  /** Fires due tasks; they must only hand work to {@link #workers()}. */
  static ScheduledExecutorService timerThread() {
    return TIMER;
  }

  /** Runs the lanes' tasks. */
  static ExecutorService workers() {
    return WORKERS;
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, daemons("agent-timer-"));
    e.setRemoveOnCancelPolicy(true);
    e.setKeepAliveTime(30, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    return e;
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}

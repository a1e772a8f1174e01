package io.gpuoperator.sim.kubelet;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The schedulers every simulated kubelet of the JVM shares, instead of a few threads per node (a
 * simulator runs hundreds of kubelets in one process; a real kubelet has one node to serve):
 *
 * <ul>
 *   <li>{@link #timer()}: short, non-blocking ticks (declared containers' behaviour);
 *   <li>{@link #api()}: periodic work that calls the API server or dials a socket and may block for
 *       a request's timeout (lease renewals, node status, device-plugin status writes and
 *       connections, DRA retries and registry scans).
 * </ul>
 *
 * Kept apart so an API server that stalls delays heartbeats, not containers. Daemon threads that
 * end when idle, so nothing has to stop them: each kubelet cancels its own tasks.
 */
public final class KubeletThreads {
  private static final ScheduledExecutorService TIMER = pool("kubelet-timer-", 2);
  private static final ScheduledExecutorService API = pool("kubelet-api-", 4);

  private KubeletThreads() {}

  /** For ticks that never block. */
  public static ScheduledExecutorService timer() {
    return TIMER;
  }

  /** For tasks that call the API server or dial a socket. */
  public static ScheduledExecutorService api() {
    return API;
  }

  private static ScheduledExecutorService pool(String prefix, int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadFactory f =
        r -> {
          Thread t = new Thread(r, prefix + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(threads, f);
    e.setKeepAliveTime(30, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    e.setRemoveOnCancelPolicy(true);
    return e;
  }
}

package io.gpuoperator.sim.kubelet;

import io.gpuoperator.sim.controlplane.DaemonThreads;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The schedulers every simulated kubelet of the JVM shares, instead of a few threads per node (a
 * simulator runs hundreds of kubelets in one process; a real kubelet has one node to serve):
 *
 * <ul>
 *   <li>{@link #timer()}: short, non-blocking ticks (declared containers' behaviour, lease renewals
 *       sent without waiting for their responses);
 *   <li>{@link #api()}: periodic work that calls the API server or dials a socket and may block for
 *       a request's timeout (lease renewals, node status, device-plugin status writes and
 *       connections, DRA retries and registry scans);
 *   <li>{@link #pods()}: the pod workers' passes, which patch pod status and may wait on the API
 *       server or a DRA plugin; it grows with the passes running at once, not with the pods;
 *   <li>{@link #probes()}: the containers' HTTP probes, grown the same way;
 *   <li>{@link #agents()}: the starts of in-process services ({@link InProcessService}), which then
 *       hold no thread; grown the same way.
 * </ul>
 *
 * Kept apart so an API server that stalls delays heartbeats, not containers. Daemon threads that
 * end when idle, so nothing has to stop them: each kubelet cancels its own tasks.
 */
public final class KubeletThreads {
  private static final ScheduledExecutorService TIMER = pool("kubelet-timer-", 2);
  private static final ScheduledExecutorService API = pool("kubelet-api-", 8);
  private static final ExecutorService PODS = growing("kubelet-pod-");
  private static final ExecutorService PROBES = growing("kubelet-probe-");
  private static final ExecutorService AGENTS = growing("kubelet-agent-start-");

  private KubeletThreads() {}

  private static final Map<Long, Set<Runnable>> BATCHES = new ConcurrentHashMap<>();

  /**
   * Runs {@code tick} every {@code periodMillis} together with every other kubelet's tick of that
   * period: one timer task per period calls them one after another, instead of one wake-up of the
   * timer per kubelet (1,000 a second at 1,000 nodes with 1 s pod-worker ticks). Ticks must not
   * block. Cancelling the result (as a heartbeat's future) removes it.
   */
  public static Future<?> batched(long periodMillis, Runnable tick) {
    Set<Runnable> batch =
        BATCHES.computeIfAbsent(
            periodMillis,
            p -> {
              Set<Runnable> members = ConcurrentHashMap.newKeySet();
              TIMER.scheduleWithFixedDelay(
                  () -> members.forEach(KubeletThreads::runQuietly), p, p, TimeUnit.MILLISECONDS);
              return members;
            });
    Runnable member = tick::run; // a distinct identity per call
    batch.add(member);
    CompletableFuture<Void> handle = new CompletableFuture<>();
    handle.whenComplete((v, e) -> batch.remove(member));
    return handle;
  }

  private static void runQuietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(KubeletThreads.class).warn("a batched tick failed: {}", e.toString());
    }
  }

  /** For ticks that never block. */
  public static ScheduledExecutorService timer() {
    return TIMER;
  }

  /** For tasks that call the API server or dial a socket. */
  public static ScheduledExecutorService api() {
    return API;
  }

  /**
   * For the pod workers' passes. Unbounded, so a pass that waits (an API server that stalls, a DRA
   * plugin that does not answer) never holds up another node's pods; threads end after 10 s idle.
   */
  public static ExecutorService pods() {
    return PODS;
  }

  /**
   * For HTTP probes: each waits up to its probe's timeout for an answer. Unbounded like {@link
   * #pods()}, so a container that does not answer never delays another's probes.
   */
  public static ExecutorService probes() {
    return PROBES;
  }

  /**
   * For the starts of in-process services: each may block (a gRPC registration, a first
   * collection), and unbounded like {@link #pods()} so a slow one never delays another node's.
   */
  public static ExecutorService agents() {
    return AGENTS;
  }

  private static ExecutorService growing(String prefix) {
    return new ThreadPoolExecutor(
        0,
        Integer.MAX_VALUE,
        10,
        TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        DaemonThreads.named(prefix));
  }

  private static ScheduledExecutorService pool(String prefix, int threads) {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(threads, DaemonThreads.named(prefix));
    e.setKeepAliveTime(30, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    e.setRemoveOnCancelPolicy(true);
    return e;
  }
}

package io.gpuoperator.sim.kubelet;

import io.gpuoperator.sim.controlplane.DaemonThreads;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
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
 *       a request's timeout (lease renewals, node status, DRA retries and registry scans);
 *   <li>{@link #pods()}: the pod workers' passes, which patch pod status and may wait on the API
 *       server or a DRA plugin; a bounded number at once ({@link #sizeFor}), the rest wait their
 *       turn;
 *   <li>{@link #devices()}: the device managers' plugin connections and Node status writes, each
 *       node's in order on its {@link SerialLane}s;
 *   <li>{@link #probes()}: the containers' HTTP probes; it grows with the probes waiting at once;
 *   <li>{@link #agents()}: the starts of in-process services ({@link InProcessService}), which then
 *       hold no thread; grown the same way;
 *   <li>{@link #checks()}: the begins of in-process tasks ({@link InProcessTask}), their checks (a
 *       validator's marker polls, its API calls) and the timers between them.
 * </ul>
 *
 * Kept apart so an API server that stalls delays heartbeats, not containers. Daemon threads that
 * end when idle, so nothing has to stop them: each kubelet cancels its own tasks.
 *
 * <p>Why the pod and device pools are bounded: their tasks wait on the API server, and an unbounded
 * pool grew a thread for every one waiting at once (432 pod passes, each in a status patch, at the
 * busiest moment of a 200-node rollout; the API server on 2 cores answers a few at a time however
 * many wait). No task of theirs waits for another task of the same pool, and each wait has a
 * deadline (the client's request timeout, a plugin call's), so a queue only delays.
 */
public final class KubeletThreads {
  private static final ScheduledExecutorService TIMER = pool("kubelet-timer-", 2);
  private static final ScheduledExecutorService API = pool("kubelet-api-", 8);

  /** The fewest pod-worker threads the pool may grow to, every simulated node's together. */
  static final int MIN_POD_THREADS = 32;

  /** Simulated nodes per pod-worker thread above {@link #MIN_POD_THREADS}. */
  static final int NODES_PER_POD_THREAD = 8;

  private static final ThreadPoolExecutor PODS = bounded("kubelet-pod-", MIN_POD_THREADS);
  private static final ExecutorService DEVICES = bounded("kubelet-dm-", 4);
  private static final ExecutorService PROBES = growing("kubelet-probe-");
  private static final ExecutorService AGENTS = growing("kubelet-agent-start-");

  /**
   * Not {@link #TIMER}: a check may block for an API call (the cuda step's pod create, a Node GET,
   * an informer's start), which must not hold up every kubelet's ticks; not {@link #API}: a rollout
   * starts hundreds of validators at once, whose calls must not delay the heartbeats. A few threads
   * are enough: what waits between checks is a scheduled task, not a thread, and the API server on
   * 2 cores answers a few requests at a time however many wait.
   */
  private static final ScheduledExecutorService CHECKS = pool("kubelet-check-", 8);

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
   * For the pod workers' passes: {@link #podThreads()} at most, threads end after 10 s idle. A pass
   * that waits (an API server that stalls, a DRA plugin that does not answer, up to its call's
   * deadline) holds one of them; the others keep serving every node's pods.
   */
  public static ExecutorService pods() {
    return PODS;
  }

  /**
   * Lets the pod workers' pool grow to a thread per {@link #NODES_PER_POD_THREAD} nodes of a
   * simulation this large (never below {@link #MIN_POD_THREADS}, never shrinking: simulations in
   * one JVM share the pool). Most of a pass is its status patch, so the passes a pool keeps going
   * are the patches in flight: 32 served 200 nodes, while at 1,000 nodes on a loaded machine the
   * API server took seconds a patch, and 32 of them at once, all in their patch, held up 430 CUDA
   * validators' workload pods (BENCHMARKS.md "Simulator at scale"). 125 at 1,000 nodes.
   */
  public static synchronized void sizeFor(int nodes) {
    int threads = Math.max(MIN_POD_THREADS, nodes / NODES_PER_POD_THREAD);
    if (threads > PODS.getMaximumPoolSize()) {
      PODS.setMaximumPoolSize(threads);
      PODS.setCorePoolSize(threads);
    }
  }

  /** The most pod-worker passes that run at once now. */
  static int podThreads() {
    return PODS.getMaximumPoolSize();
  }

  /**
   * For the device managers' {@link SerialLane}s (plugin connections, Node status writes): a few
   * threads, as these are a handful of short calls per node, bunched when plugins register.
   */
  public static ExecutorService devices() {
    return DEVICES;
  }

  /**
   * For HTTP probes: each waits up to its probe's timeout for an answer. Unbounded, so a container
   * that does not answer never delays another's probes (a probe's timing is what it tests).
   */
  public static ExecutorService probes() {
    return PROBES;
  }

  /**
   * For the starts of in-process services: each may block (a gRPC registration, a first collection,
   * an entrypoint's wait for another container's marker file), so unbounded: a queue could hold up
   * the very start whose marker a waiting one needs.
   */
  public static ExecutorService agents() {
    return AGENTS;
  }

  /**
   * For the begins of in-process tasks, their checks and the waits between them (a validator's
   * marker polls, retries, watches' timeouts): a few threads, every task of the JVM sharing them.
   * Begins come here, not to {@link #agents()}: none waits, and a rollout begins a validator on
   * every GPU node at the same moment, for which that growing pool grew a thread each (48 start
   * threads at the busiest moment of a 50-node rollout, against 15 for the services alone).
   */
  public static ScheduledExecutorService checks() {
    return CHECKS;
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

  private static ThreadPoolExecutor bounded(String prefix, int threads) {
    ThreadPoolExecutor e =
        new ThreadPoolExecutor(
            threads,
            threads,
            10,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            DaemonThreads.named(prefix));
    e.allowCoreThreadTimeOut(true);
    return e;
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

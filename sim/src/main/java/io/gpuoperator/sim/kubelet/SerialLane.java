package io.gpuoperator.sim.kubelet;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated node's serial executor for one job (its device-plugin connections, its Node status
 * writes) on a pool that every node shares: tasks run one at a time in the order given, as on a
 * single-thread executor of the node's own, but no thread is held between them. A thread per node
 * and job that lived 5 s after its last task was 150 of the JVM's threads at the busiest moment of
 * a 200-node rollout, most of them idle. While a task runs, its thread carries the lane's name, so
 * a thread dump still says whose it is.
 */
public final class SerialLane implements Executor {
  private static final Logger LOG = LoggerFactory.getLogger(SerialLane.class);

  private final String name;
  private final Executor pool;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();

  /** Set while a pool thread runs the lane's tasks, so only one does. */
  private final AtomicBoolean running = new AtomicBoolean();

  private volatile boolean closed;

  /**
   * @param name the thread name while a task of the lane runs
   * @param pool where the tasks run (bounded pools are fine: a lane holds one thread at a time)
   */
  public SerialLane(String name, Executor pool) {
    this.name = name;
    this.pool = pool;
  }

  /** Runs the task after those already given; nothing once the lane is closed. */
  @Override
  public void execute(Runnable task) {
    if (!closed && queue.add(task)) {
      claim();
    }
  }

  /** Runs the task on the lane after the delay (the kubelets' timer only hands it over). */
  public void schedule(Runnable task, long delay, TimeUnit unit) {
    KubeletThreads.timer().schedule(() -> execute(task), delay, unit);
  }

  /** Takes no more tasks and drops those waiting; one running now finishes. */
  public void close() {
    closed = true;
    queue.clear();
  }

  private void claim() {
    if (running.compareAndSet(false, true)) {
      pool.execute(this::runQueued);
    }
  }

  private void runQueued() {
    Thread thread = Thread.currentThread();
    String poolName = thread.getName();
    thread.setName(name);
    try {
      for (Runnable task = queue.poll(); task != null && !closed; task = queue.poll()) {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("{}: a task failed: {}", name, e.toString(), e);
        }
      }
    } finally {
      Thread.interrupted(); // nothing of this lane's may reach the pool's next task
      thread.setName(poolName);
      running.set(false);
    }
    // A task given between the last poll and the reset above found the lane running.
    if (!closed && !queue.isEmpty()) {
      claim();
    }
  }
}

package io.gpuoperator.node.agent;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent loop's executor on the JVM's shared {@link AgentThreads}: its tasks, immediate or
 * timed, run one at a time in the order they became due, as on a single-thread scheduled executor,
 * but no thread is held between them. While a task runs, the thread carries the lane's name, so
 * logs and thread dumps still say which loop it is.
 *
 * <p>Unlike {@link java.util.concurrent.ScheduledExecutorService#scheduleWithFixedDelay}, a
 * periodic task that throws is logged and runs again at its next period: an agent's loop must
 * outlive one bad pass.
 */
public final class AgentLane implements Executor, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AgentLane.class);

  /** A timed task of the lane. */
  public final class Task {
    private volatile boolean cancelled;
    private volatile ScheduledFuture<?> next;

    private Task() {}

    /** No further runs; one running now finishes. */
    public void cancel() {
      cancelled = true;
      timers.remove(this);
      ScheduledFuture<?> f = next;
      if (f != null) {
        f.cancel(false);
      }
    }

    public boolean cancelled() {
      return cancelled;
    }
  }

  private final String name;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final Set<Task> timers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * @param name the name the loop's thread had (a thread running its tasks carries it)
   */
  public AgentLane(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** Runs the task after those already queued; does nothing once the lane is closed. */
  @Override
  public void execute(Runnable task) {
    if (closed) {
      return;
    }
    queue.add(task);
    kick();
  }

  /** Runs the task once after the delay. */
  public Task schedule(Runnable task, long delay, TimeUnit unit) {
    Task t = new Task();
    timers.add(t);
    arm(t, task, unit.toNanos(delay), 0);
    return t;
  }

  /** Runs the task after the initial delay, then again the delay after each run ends. */
  public Task scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
    if (delay <= 0) {
      throw new IllegalArgumentException("delay must be positive, got " + delay);
    }
    Task t = new Task();
    timers.add(t);
    arm(t, task, unit.toNanos(initialDelay), unit.toNanos(delay));
    return t;
  }

  /**
   * Runs the task every period, in one batch with every lane's batched task of that period: one
   * timer wake-up and one pool thread per period for the whole batch, the tasks called one after
   * another on it. Only for tasks that never block (taking pending GPU events, checking a file's
   * time); one that blocks delays the rest of its batch. When the lane is busy with another of its
   * tasks at that moment, the task skips that period (the lane stays serial, and a lane that is
   * stuck does not pile up runs).
   */
  public Task scheduleBatched(Runnable task, long period, TimeUnit unit) {
    Task t = new Task();
    timers.add(t);
    AgentBatches.add(unit.toNanos(period), new AgentBatches.Member(this, t, task));
    return t;
  }

  /** Runs a batched task now on the calling thread, unless the lane is busy. */
  void runBatched(Task t, Runnable task) {
    if (closed || t.cancelled) {
      return;
    }
    if (!draining.compareAndSet(false, true)) {
      return; // busy with another of its tasks: this period is skipped, nothing piles up
    }
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.error("{}: a pass failed (it runs again at its next turn): {}", name, e.toString(), e);
    } finally {
      draining.set(false);
      if (!closed && !queue.isEmpty()) {
        kick();
      }
    }
  }

  /** Whether {@link #close()} was called. */
  public boolean closed() {
    return closed;
  }

  /** Cancels every timed task and drops queued ones; a task running now finishes. */
  @Override
  public void close() {
    closed = true;
    for (Task t : Set.copyOf(timers)) {
      t.cancel();
    }
    queue.clear();
  }

  private void arm(Task t, Runnable body, long delayNanos, long repeatNanos) {
    if (closed || t.cancelled) {
      return;
    }
    t.next =
        AgentThreads.timerThread()
            .schedule(
                () ->
                    execute(
                        () -> {
                          if (t.cancelled || closed) {
                            return;
                          }
                          try {
                            body.run();
                          } finally {
                            if (repeatNanos > 0) {
                              arm(t, body, repeatNanos, repeatNanos);
                            } else {
                              timers.remove(t);
                            }
                          }
                        }),
                Math.max(0, delayNanos),
                TimeUnit.NANOSECONDS);
    if (t.cancelled) {
      // Cancelled while it was being armed: cancel() may have seen the previous future.
      t.next.cancel(false);
    }
  }

  private void kick() {
    if (draining.compareAndSet(false, true)) {
      AgentThreads.workers().execute(this::drain);
    }
  }

  private void drain() {
    Thread thread = Thread.currentThread();
    String poolName = thread.getName();
    thread.setName(name);
    try {
      Runnable r;
      while (!closed && (r = queue.poll()) != null) {
        try {
          r.run();
        } catch (RuntimeException e) {
          LOG.error(
              "{}: a pass failed (it runs again at its next turn): {}", name, e.toString(), e);
        }
      }
    } finally {
      Thread.interrupted();
      thread.setName(poolName);
      draining.set(false);
      if (!closed && !queue.isEmpty()) {
        kick();
      }
    }
  }
}

package io.gpuoperator.node.validator;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The waits of one validator run, holding no thread while they wait: each check runs on the
 * scheduler (it may do short blocking I/O there: a file, an API call), and the time between checks
 * is a scheduled task. A simulator runs hundreds of validators in one JVM, and a thread each that
 * only slept between polls was most of its threads at the peak of a rollout.
 *
 * <p>Ending the run ({@link #outcome}'s future cancelled: the container was killed) cancels every
 * wait in progress, which stops its polling and closes its informer, and a wait begun afterwards is
 * cancelled at once, so nothing of the run keeps going but its cleanup.
 */
final class Waits {
  /** The shortest time between two checks, whatever the poll interval says (zero would spin). */
  static final Duration MIN_INTERVAL = Duration.ofMillis(100);

  /** One attempt of a check: returns normally when it passes. */
  @FunctionalInterface
  interface Check<T> {
    T run() throws ValidationException;
  }

  private final ScheduledExecutorService scheduler;
  private final Set<CompletableFuture<?>> live = ConcurrentHashMap.newKeySet();
  private volatile boolean ended;

  Waits(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /**
   * Where a run's cleanup goes (the cuda step's pod delete): the scheduler, or the calling thread
   * once the scheduler has stopped (a blocking run interrupted), so that it happens whatever.
   */
  Executor cleanup() {
    return task -> {
      try {
        scheduler.execute(task);
      } catch (RejectedExecutionException stopped) {
        task.run();
      }
    };
  }

  /** The check run once on the scheduler. */
  <T> CompletableFuture<T> call(Check<T> check) {
    return poll(MIN_INTERVAL, check, e -> false);
  }

  /**
   * The check run on the scheduler now and again every {@code interval} (at least {@link
   * #MIN_INTERVAL}) while it fails with an exception that {@code again} accepts; the first it
   * refuses is the result's failure.
   */
  <T> CompletableFuture<T> poll(
      Duration interval, Check<T> check, Predicate<ValidationException> again) {
    CompletableFuture<T> result = begun(new CompletableFuture<>());
    long millis = Math.max(interval.toMillis(), MIN_INTERVAL.toMillis());
    AtomicReference<Future<?>> next = new AtomicReference<>();
    result.whenComplete((v, e) -> cancel(next.get()));
    Runnable attempt =
        new Runnable() {
          @Override
          public void run() {
            if (result.isDone()) {
              return;
            }
            try {
              result.complete(check.run());
            } catch (ValidationException e) {
              if (!again.test(e)) {
                result.completeExceptionally(e);
                return;
              }
              try {
                next.set(scheduler.schedule(this, millis, TimeUnit.MILLISECONDS));
              } catch (RejectedExecutionException stopped) {
                result.completeExceptionally(stopped);
              }
              if (result.isDone()) {
                cancel(next.get()); // cancelled while this attempt ran: no more of them
              }
            } catch (RuntimeException | Error e) {
              result.completeExceptionally(e);
            }
          }
        };
    try {
      scheduler.execute(attempt);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  /**
   * A wait of this run: cancelled when the run ends, at once when it has already ended; forgotten
   * when it completes.
   */
  <F extends CompletableFuture<?>> F begun(F wait) {
    live.add(wait);
    wait.whenComplete((v, e) -> live.remove(wait));
    if (ended) {
      wait.cancel(true);
    }
    return wait;
  }

  /**
   * The run's outcome: {@code steps}' result, its failure unwrapped (the {@link
   * ValidationException} itself); cancelling it ends the run.
   */
  <T> CompletableFuture<T> outcome(CompletableFuture<T> steps) {
    CompletableFuture<T> result = new CompletableFuture<>();
    steps.whenComplete(
        (v, e) -> {
          if (e == null) {
            result.complete(v);
          } else {
            result.completeExceptionally(unwrap(e));
          }
        });
    result.whenComplete((v, e) -> end());
    return result;
  }

  private void end() {
    ended = true;
    for (CompletableFuture<?> wait : live) {
      wait.cancel(true);
    }
  }

  private static void cancel(Future<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }

  /** The cause a stage's {@link CompletionException} carries. */
  static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /**
   * The blocking form of an asynchronous run, for a process that runs one validator (the real pod):
   * its waits on a scheduler thread of its own, the calling thread waiting for the outcome. An
   * interrupt cancels the run and waits a while for its cleanup (the cuda step's pod delete).
   */
  static <T> T blocking(Function<ScheduledExecutorService, CompletableFuture<T>> start)
      throws ValidationException, InterruptedException {
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "validator");
              t.setDaemon(true);
              return t;
            });
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    try {
      CompletableFuture<T> run = start.apply(scheduler);
      try {
        return run.get();
      } catch (InterruptedException e) {
        run.cancel(true);
        throw e;
      } catch (ExecutionException e) {
        throw rethrown(e.getCause());
      }
    } finally {
      scheduler.shutdown();
      try {
        scheduler.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static ValidationException rethrown(Throwable cause) {
    if (cause instanceof ValidationException v) {
      return v;
    }
    if (cause instanceof RuntimeException r) {
      throw r;
    }
    if (cause instanceof Error err) {
      throw err;
    }
    throw new IllegalStateException(cause);
  }
}

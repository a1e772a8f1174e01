package io.gpuoperator.operator.runtime;

import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ExecutorServiceManager;
import java.lang.reflect.Field;
import java.util.concurrent.ExecutorService;

/**
 * Bounds JOSDK's start-up pool. JOSDK 5.2 starts controllers, their event sources and the leader
 * elector on a cached pool of its own ({@code ExecutorServiceManager.cachingExecutorService}), one
 * thread per event source starting at once: 40 of the operator's 113 threads at 1,000 nodes
 * (BENCHMARKS.md "Operator footprint"), kept a minute after start-up. The pool is not configurable
 * and the manager cannot be subclassed outside JOSDK's package, so its field is replaced, once,
 * before the operator starts; {@code JosdkStartPoolTest} fails if a JOSDK upgrade renames it. The
 * replacement runs a task in the submitting thread when its threads are busy ({@link
 * ThreadPools#callerRuns}): JOSDK waits on this pool from tasks of the same pool.
 */
final class JosdkStartPool {
  /** Threads of the start-up pool: event sources start two at a time besides the caller. */
  static final int THREADS = 2;

  private static final String FIELD = "cachingExecutorService";

  private JosdkStartPool() {}

  /** Replaces the operator's start-up pool (not started yet) with a bounded one. */
  static void install(Operator operator) {
    ExecutorServiceManager manager = operator.getConfigurationService().getExecutorServiceManager();
    try {
      Field field = ExecutorServiceManager.class.getDeclaredField(FIELD);
      field.setAccessible(true);
      ExecutorService previous = (ExecutorService) field.get(manager);
      field.set(manager, ThreadPools.callerRuns("josdk-start", THREADS));
      // JOSDK's own cached pool has started no thread yet; it is not used any more.
      previous.shutdown();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "JOSDK's ExecutorServiceManager has no field " + FIELD + " (a JOSDK upgrade?)", e);
    }
  }
}

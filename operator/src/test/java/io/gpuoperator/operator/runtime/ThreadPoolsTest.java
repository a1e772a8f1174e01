package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadPoolsTest {
  @Test
  void runsAtMostItsThreadsAndQueuesTheRest() throws Exception {
    var pool = ThreadPools.bounded("test-pool", 2);
    try {
      assertThat(pool.getPoolSize()).as("no thread before work").isZero();
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(5);
      for (int i = 0; i < 5; i++) {
        pool.execute(
            () -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              done.countDown();
            });
      }
      assertThat(pool.getPoolSize()).isEqualTo(2);
      assertThat(pool.getQueue()).hasSize(3);
      release.countDown();
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(pool.allowsCoreThreadTimeOut()).as("idle threads end").isTrue();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void namesDaemonThreads() throws Exception {
    var pool = ThreadPools.bounded("named", 1);
    try {
      var thread = pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
      assertThat(thread.getName()).isEqualTo("named-1");
      assertThat(thread.isDaemon()).isTrue();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void callerRunsNestedWaitsWithoutDeadlock() throws Exception {
    // As JOSDK uses its start-up pool: 4 controllers started at once, each starting 5 event sources
    // on the same pool and waiting for them all, on a pool of 2 threads.
    var pool = ThreadPools.callerRuns("nested", 2);
    try {
      var threads = java.util.concurrent.ConcurrentHashMap.<String>newKeySet();
      Callable<Void> source =
          () -> {
            threads.add(Thread.currentThread().getName());
            Thread.sleep(20);
            return null;
          };
      Callable<Void> controller =
          () -> {
            for (Future<Void> f : pool.invokeAll(List.of(source, source, source, source, source))) {
              f.get();
            }
            return null;
          };
      var all = pool.invokeAll(List.of(controller, controller, controller, controller));
      for (Future<Void> f : all) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertThat(pool.getLargestPoolSize()).isEqualTo(2);
      assertThat(threads).as("some ran in the submitting threads").contains("main");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void callerRunsRejectsAfterShutdown() {
    var pool = ThreadPools.callerRuns("closed", 1);
    pool.shutdown();
    assertThatThrownBy(() -> pool.execute(() -> {}))
        .isInstanceOf(RejectedExecutionException.class)
        .hasMessage("closed is shut down");
  }

  @Test
  void noThreadsIsAnError() {
    assertThatThrownBy(() -> ThreadPools.bounded("empty", 0))
        .hasMessage("empty: threads must be at least 1, got 0");
  }
}

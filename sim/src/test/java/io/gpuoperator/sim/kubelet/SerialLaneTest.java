package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SerialLaneTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void runsItsTasksOneAtATimeInOrderOnAPoolThreadCarryingItsName() throws Exception {
    SerialLane lane = new SerialLane("kubelet-dm-status-h100-0", pool);
    // Each run: its number, the thread's name, how many of the lane's tasks were running.
    Queue<String> runs = new ConcurrentLinkedQueue<>();
    AtomicInteger inside = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(100);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String n = Integer.toString(i);
      expected.add(n + " kubelet-dm-status-h100-0 1");
      lane.execute(
          () -> {
            runs.add(n + " " + Thread.currentThread().getName() + " " + inside.incrementAndGet());
            inside.decrementAndGet();
            done.countDown();
          });
    }
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runs).containsExactlyElementsOf(expected);
    // Between tasks the pool thread is the pool's again.
    assertThat(pool.submit(() -> Thread.currentThread().getName()).get())
        .startsWith("pool-")
        .doesNotContain("kubelet");
  }

  @Test
  void aHundredLanesProgressOnFourThreadsAndHoldNoneWhenIdle() throws Exception {
    CountDownLatch done = new CountDownLatch(100 * 5);
    for (int node = 0; node < 100; node++) {
      SerialLane lane = new SerialLane("lane-" + node, pool);
      for (int i = 0; i < 5; i++) {
        lane.execute(done::countDown);
      }
    }
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    ThreadPoolExecutor threads = (ThreadPoolExecutor) pool;
    long deadline = System.currentTimeMillis() + 5_000;
    while (threads.getActiveCount() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertThat(threads.getActiveCount()).isZero();
    assertThat(threads.getQueue()).isEmpty();
  }

  @Test
  void aFailedTaskIsLoggedAndTheNextOneRuns() throws Exception {
    SerialLane lane = new SerialLane("lane", pool);
    CountDownLatch next = new CountDownLatch(1);
    lane.execute(
        () -> {
          throw new IllegalStateException("boom");
        });
    lane.execute(next::countDown);
    assertThat(next.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void closeDropsTheWaitingTasksAndRefusesNewOnesWhileTheRunningOneFinishes() throws Exception {
    SerialLane lane = new SerialLane("lane", pool);
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Void> release = new CompletableFuture<>();
    AtomicInteger ran = new AtomicInteger();
    lane.execute(
        () -> {
          started.countDown();
          release.join();
          ran.incrementAndGet();
        });
    lane.execute(ran::incrementAndGet);
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    lane.close();
    lane.execute(ran::incrementAndGet);
    release.complete(null);
    pool.shutdown();
    assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran.get()).isEqualTo(1);
  }

  @Test
  void aScheduledTaskRunsOnTheLaneAfterItsDelay() throws Exception {
    SerialLane lane = new SerialLane("delayed-lane", pool);
    CountDownLatch ran = new CountDownLatch(1);
    List<String> name = Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    lane.schedule(
        () -> {
          name.add(Thread.currentThread().getName());
          ran.countDown();
        },
        200,
        TimeUnit.MILLISECONDS);
    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(200);
    assertThat(name).containsExactly("delayed-lane");
  }
}

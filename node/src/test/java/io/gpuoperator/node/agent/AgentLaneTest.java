package io.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AgentLaneTest {
  @Test
  void tasksRunOneAtATimeInOrderUnderTheLanesName() throws Exception {
    try (AgentLane lane = new AgentLane("lane-under-test")) {
      List<Integer> order = new CopyOnWriteArrayList<>();
      List<String> names = new CopyOnWriteArrayList<>();
      AtomicInteger running = new AtomicInteger();
      AtomicInteger maxRunning = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(200);
      for (int i = 0; i < 200; i++) {
        int n = i;
        lane.execute(
            () -> {
              maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              names.add(Thread.currentThread().getName());
              order.add(n);
              running.decrementAndGet();
              done.countDown();
            });
      }
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(order).isSorted().hasSize(200);
      assertThat(maxRunning.get()).isEqualTo(1);
      assertThat(names).containsOnly("lane-under-test");
    }
  }

  @Test
  void aPeriodicTaskThatThrowsRunsAgain() {
    try (AgentLane lane = new AgentLane("throwing")) {
      AtomicInteger runs = new AtomicInteger();
      lane.scheduleWithFixedDelay(
          () -> {
            runs.incrementAndGet();
            throw new IllegalStateException("bad pass");
          },
          0,
          10,
          TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 3);
    }
  }

  @Test
  void aBlockedLaneDelaysNoOtherLane() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (AgentLane stuck = new AgentLane("stuck");
        AgentLane other = new AgentLane("other")) {
      stuck.execute(
          () -> {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      CountDownLatch ran = new CountDownLatch(1);
      other.schedule(ran::countDown, 5, TimeUnit.MILLISECONDS);
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      release.countDown();
    }
  }

  @Test
  void closingCancelsTimedTasksAndDropsNewOnes() throws Exception {
    AgentLane lane = new AgentLane("closing");
    AtomicInteger runs = new AtomicInteger();
    lane.scheduleWithFixedDelay(runs::incrementAndGet, 0, 5, TimeUnit.MILLISECONDS);
    AgentLane.Task later = lane.schedule(runs::incrementAndGet, 1, TimeUnit.HOURS);
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 2);
    lane.close();
    Thread.sleep(50);
    int after = runs.get();
    lane.execute(runs::incrementAndGet);
    Thread.sleep(100);
    assertThat(runs.get()).isEqualTo(after);
    assertThat(later.cancelled()).isTrue();
  }

  @Test
  void batchedTasksRunEveryPeriodUntilCancelledAndNeverBesideTheirLanesOtherWork()
      throws Exception {
    try (AgentLane a = new AgentLane("batched-a");
        AgentLane b = new AgentLane("batched-b")) {
      AtomicInteger runsA = new AtomicInteger();
      AtomicInteger runsB = new AtomicInteger();
      AgentLane.Task taskA = a.scheduleBatched(runsA::incrementAndGet, 20, TimeUnit.MILLISECONDS);
      b.scheduleBatched(runsB::incrementAndGet, 20, TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> runsA.get() >= 3 && runsB.get() >= 3);

      taskA.cancel();
      Thread.sleep(100);
      int afterCancel = runsA.get();
      int bBefore = runsB.get();
      // b busy with a long task of its own: its batched tasks skip, never run beside it.
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger running = new AtomicInteger();
      AtomicInteger overlap = new AtomicInteger();
      b.execute(
          () -> {
            running.incrementAndGet();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
          });
      b.scheduleBatched(
          () -> {
            if (running.get() > 0) {
              overlap.incrementAndGet();
            }
          },
          20,
          TimeUnit.MILLISECONDS);
      Thread.sleep(200);
      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> runsB.get() > bBefore + 3);
      assertThat(runsA.get()).isEqualTo(afterCancel);
      assertThat(overlap.get()).isZero();
    }
  }
}

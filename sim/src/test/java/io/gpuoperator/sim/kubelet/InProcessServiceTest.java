package io.gpuoperator.sim.kubelet;

import static io.gpuoperator.sim.kubelet.InProcessContainers.threadsNamed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-process service as a container: started on the shared pool, holding no thread while it
 * runs, closed when killed (also when killed during its start), its start's failure the exit code.
 */
class InProcessServiceTest {
  @TempDir Path dir;

  private ContainerProcess start(InProcessService agent) throws Exception {
    return InProcessContainers.start(dir, "svc", agent);
  }

  @Test
  void runsWithoutAThreadOfItsOwnAndIsClosedWhenKilled() throws Exception {
    AtomicInteger closed = new AtomicInteger();
    ContainerProcess p =
        start(
            ctx -> {
              ctx.markReady();
              return closed::incrementAndGet;
            });
    await().atMost(Duration.ofSeconds(10)).until(p::isReady);
    // The start's pool thread carried the agent's name only while starting.
    await().atMost(Duration.ofSeconds(10)).until(() -> threadsNamed("agent-svc-n1") == 0);
    assertThat(p.hasExited()).isFalse();
    p.stop();
    assertThat(closed).hasValue(1);
    assertThat(p.exitCode()).isEqualTo(KubeletConstants.EXIT_KILLED);
  }

  @Test
  void aFailedStartIsExitOneAndAFinishedOneShotExitZero() throws Exception {
    ContainerProcess failed =
        start(
            ctx -> {
              throw new IllegalStateException("no GPUs");
            });
    await().atMost(Duration.ofSeconds(10)).until(failed::hasExited);
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.message()).contains("no GPUs");

    ContainerProcess oneShot = start(ctx -> null);
    await().atMost(Duration.ofSeconds(10)).until(oneShot::hasExited);
    assertThat(oneShot.exitCode()).isZero();
  }

  @Test
  void aKillDuringTheStartInterruptsItAndAStartThatEndsLateClosesItsResult() throws Exception {
    CountDownLatch starting = new CountDownLatch(1);
    ContainerProcess interrupted =
        start(
            ctx -> {
              starting.countDown();
              Thread.sleep(60_000);
              return () -> {};
            });
    starting.await();
    long t0 = System.nanoTime();
    interrupted.stop();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
    assertThat(interrupted.exitCode()).isEqualTo(KubeletConstants.EXIT_KILLED);

    // A start that ignores the interrupt and ends after the kill's 5 s wait: it closes its result.
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger closed = new AtomicInteger();
    ContainerProcess late =
        start(
            ctx -> {
              started.countDown();
              while (true) {
                try {
                  release.await();
                  break;
                } catch (InterruptedException e) {
                  // ignores the kill
                }
              }
              return closed::incrementAndGet;
            });
    started.await();
    Thread killer = new Thread(late::stop);
    killer.start();
    killer.join();
    assertThat(late.exitCode()).isEqualTo(KubeletConstants.EXIT_KILLED);
    assertThat(closed).hasValue(0);
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> closed.get() == 1);
  }
}

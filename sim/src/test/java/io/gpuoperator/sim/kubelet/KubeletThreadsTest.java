package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KubeletThreadsTest {

  @Test
  void podPassesBeyondTheBoundWaitTheirTurnInsteadOfGrowingThePool() throws Exception {
    int passes = 2 * KubeletThreads.podThreads();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CompletableFuture<Void> apiServer = new CompletableFuture<>();
    CountDownLatch done = new CountDownLatch(passes);
    for (int i = 0; i < passes; i++) {
      KubeletThreads.pods()
          .execute(
              () -> {
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                apiServer.join(); // every pass waits on a stalled API server
                inside.decrementAndGet();
                done.countDown();
              });
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> inside.get() == KubeletThreads.podThreads());
    Thread.sleep(200); // room for a pool that would grow past its bound to do so
    assertThat(most.get()).isEqualTo(KubeletThreads.podThreads());
    apiServer.complete(null);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void thePodPoolGrowsWithTheLargestSimulationAndNeverShrinks() {
    KubeletThreads.sizeFor(5);
    assertThat(KubeletThreads.podThreads()).isGreaterThanOrEqualTo(32);
    KubeletThreads.sizeFor(1000);
    assertThat(KubeletThreads.podThreads()).isEqualTo(125);
    KubeletThreads.sizeFor(200);
    assertThat(KubeletThreads.podThreads()).isEqualTo(125);
  }
}

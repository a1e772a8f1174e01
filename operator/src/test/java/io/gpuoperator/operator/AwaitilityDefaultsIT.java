package io.gpuoperator.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The ITs' Awaitility default ({@link AwaitilityDefaults}) is in force: an NPE is waited out. */
class AwaitilityDefaultsIT {
  @Test
  void aNullPointerExceptionInsideAWaitIsRetried() {
    AtomicInteger calls = new AtomicInteger();
    String[] status = {null};
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .untilAsserted(
            () -> {
              if (calls.incrementAndGet() == 3) {
                status[0] = "ready";
              }
              assertThat(status[0].length()).isEqualTo(5); // NPE until the third try
            });
    assertThat(calls.get()).isGreaterThanOrEqualTo(3);
  }
}

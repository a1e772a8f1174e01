package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SettleWindowTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final ObjectKey ds = new ObjectKey("apps/v1", "DaemonSet", "gpu", "plugin");
  private final ObjectKey other = new ObjectKey("apps/v1", "DaemonSet", "gpu", "gfd");

  @Test
  void aFirstWriteGoesAtOnceAndTheNextWaitsForTheRestOfTheWindow() {
    SettleWindow w = new SettleWindow(Duration.ofSeconds(5), now::get);
    assertThat(w.waitFor(ds)).isZero();
    w.written(ds);
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThat(w.waitFor(ds)).isEqualTo(Duration.ofSeconds(3));
    assertThat(w.waitFor(other)).as("each object has its own window").isZero();
    now.addAndGet(Duration.ofSeconds(3).toNanos());
    assertThat(w.waitFor(ds)).isZero();
  }

  @Test
  void aZeroWindowNeverHoldsBackAndAForgottenObjectStartsAfresh() {
    SettleWindow off = new SettleWindow(Duration.ZERO, now::get);
    off.written(ds);
    assertThat(off.waitFor(ds)).isZero();

    SettleWindow w = new SettleWindow(Duration.ofSeconds(5), now::get);
    w.written(ds);
    w.forget(ds);
    assertThat(w.waitFor(ds)).isZero();
  }
}

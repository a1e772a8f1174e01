package io.gpuoperator.operator.reconciler;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * At most one write of each object per window: a DaemonSet written less than {@code window} ago
 * waits for the rest of it. A burst of policy edits (an automation writing the policy over and
 * over) then rolls each DaemonSet once per window with the latest rendering, not once per edit; a
 * single edit after a quiet spell is written at once. Creations are never held back.
 */
final class SettleWindow {
  private final long windowNanos;
  private final LongSupplier nanoClock;
  private final Map<ObjectKey, Long> lastWrite = new ConcurrentHashMap<>();

  SettleWindow(Duration window, LongSupplier nanoClock) {
    this.windowNanos = window.toNanos();
    this.nanoClock = nanoClock;
  }

  SettleWindow(Duration window) {
    this(window, System::nanoTime);
  }

  /** How long a write of {@code key} must wait; zero when it may be written now. */
  Duration waitFor(ObjectKey key) {
    Long last = lastWrite.get(key);
    if (last == null || windowNanos == 0) {
      return Duration.ZERO;
    }
    long left = last + windowNanos - nanoClock.getAsLong();
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  /** Records a write of {@code key} now. */
  void written(ObjectKey key) {
    if (windowNanos > 0) {
      lastWrite.put(key, nanoClock.getAsLong());
    }
  }

  /** Forgets an object that no longer exists. */
  void forget(ObjectKey key) {
    lastWrite.remove(key);
  }
}

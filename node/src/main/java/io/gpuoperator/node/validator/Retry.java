package io.gpuoperator.node.validator;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A check run once, or with {@code --wait} again every poll interval until it passes or the timeout
 * ends (zero: forever), as the original's steps retry with {@code WITH_WAIT}: the module, device or
 * container they check is often still being set up when the step starts.
 */
final class Retry {
  private static final Logger LOG = LoggerFactory.getLogger(Retry.class);

  private Retry() {}

  /** The check's result once it passes; its last failure when it may not try again. */
  static <T> CompletableFuture<T> until(
      Waits waits, ValidatorConfig config, String what, Waits.Check<T> check) {
    Instant deadline =
        config.timeout().isZero() ? Instant.MAX : Instant.now().plus(config.timeout());
    AtomicReference<String> last = new AtomicReference<>();
    return waits.poll(
        config.poll(),
        check,
        e -> {
          if (!config.withWait() || !Instant.now().isBefore(deadline)) {
            return false;
          }
          if (!e.getMessage().equals(last.getAndSet(e.getMessage()))) {
            LOG.info(
                "{} not ready yet ({}); checking again every {} s",
                what,
                e.getMessage(),
                config.poll().toSeconds());
          }
          return true;
        });
  }
}

package io.gpuoperator.node.validator;

import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A check run once, or with {@code --wait} again every poll interval until it passes or the timeout
 * ends (zero: forever), as the original's steps retry with {@code WITH_WAIT}: the module, device or
 * container they check is often still being set up when the step starts.
 */
final class Retry {
  private static final Logger LOG = LoggerFactory.getLogger(Retry.class);

  /** One attempt: returns normally when the check passes. */
  @FunctionalInterface
  interface Check<T> {
    T run() throws ValidationException;
  }

  private Retry() {}

  static <T> T until(ValidatorConfig config, String what, Check<T> check)
      throws ValidationException, InterruptedException {
    Instant deadline =
        config.timeout().isZero() ? Instant.MAX : Instant.now().plus(config.timeout());
    String last = null;
    while (true) {
      try {
        return check.run();
      } catch (ValidationException e) {
        if (!config.withWait() || !Instant.now().isBefore(deadline)) {
          throw e;
        }
        if (!e.getMessage().equals(last)) {
          last = e.getMessage();
          LOG.info("{} not ready yet ({}); checking again every {} s", what, last, poll(config));
        }
      }
      Thread.sleep(Math.max(config.poll().toMillis(), 100));
    }
  }

  private static long poll(ValidatorConfig config) {
    return config.poll().toSeconds();
  }
}

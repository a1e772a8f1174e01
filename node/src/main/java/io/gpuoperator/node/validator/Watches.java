package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Waits for one object to meet a condition by watching it, instead of polling with GETs: a watch
 * costs the API server one list and the events that happen, where a poll of every validator in a
 * fleet costs a read per node per interval whatever happens.
 */
final class Watches {
  private Watches() {}

  /**
   * The object (null when it does not exist) once {@code condition} holds for it, or empty after
   * {@code timeout}. No thread waits: the informer's events complete it, a scheduled task ends it
   * at the timeout; it completes on the run's scheduler. However it ends (met, timed out, the run
   * cancelled), the informer is stopped.
   */
  static <T extends HasMetadata> CompletableFuture<Optional<Holder<T>>> until(
      Waits waits, Resource<T> resource, Predicate<T> condition, Duration timeout) {
    CompletableFuture<Optional<Holder<T>>> result = waits.begun(new CompletableFuture<>());
    waits
        .call(
            () -> {
              if (result.isDone()) {
                return null;
              }
              CompletableFuture<List<T>> met =
                  resource.informOnCondition(l -> condition.test(l.isEmpty() ? null : l.get(0)));
              met.whenCompleteAsync(
                  (l, e) -> {
                    if (e == null) {
                      result.complete(Optional.of(new Holder<>(l.isEmpty() ? null : l.get(0))));
                    } else {
                      result.completeExceptionally(
                          KubernetesClientException.launderThrowable(Waits.unwrap(e)));
                    }
                  },
                  waits.scheduler());
              result.whenComplete((v, e) -> met.cancel(true)); // stops a running informer
              Future<?> timer =
                  waits
                      .scheduler()
                      .schedule(
                          () -> result.complete(Optional.empty()),
                          timeout.toMillis(),
                          TimeUnit.MILLISECONDS);
              result.whenComplete((v, e) -> timer.cancel(false));
              return null;
            })
        .whenComplete(
            (v, e) -> {
              if (e != null) {
                result.completeExceptionally(Waits.unwrap(e));
              }
            });
    return result;
  }

  /** What the condition held for; {@code value} is null when the object does not exist. */
  record Holder<T>(T value) {}
}

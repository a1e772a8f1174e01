package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.gpuoperator.api.NodeWatch;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
    return watched(
        waits,
        timeout,
        result -> {
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
        });
  }

  /**
   * The Node (null when it does not exist when the wait begins) once {@code condition} holds for
   * it, or empty after {@code timeout}; heard through {@code nodes}, which tells the Node as it is
   * now and then each change. Like {@link #until}, no thread waits, it completes on the run's
   * scheduler, and its watch is closed however it ends.
   */
  static CompletableFuture<Optional<Holder<Node>>> node(
      Waits waits, NodeWatch nodes, String name, Predicate<Node> condition, Duration timeout) {
    return watched(
        waits,
        timeout,
        result -> {
          Node now = nodes.current(name);
          if (now == null || condition.test(now)) {
            result.complete(Optional.of(new Holder<>(now)));
            return;
          }
          // The watch's thread only hands the Node over: the rest runs on the scheduler.
          AutoCloseable watch =
              nodes.watch(
                  name,
                  n -> {
                    if (condition.test(n)) {
                      waits
                          .scheduler()
                          .execute(() -> result.complete(Optional.of(new Holder<>(n))));
                    }
                  });
          result.whenComplete((v, e) -> close(watch));
        });
  }

  /**
   * A wait that {@code start} begins on the run's scheduler (unless the run has already ended) and
   * that ends empty after {@code timeout}; what {@code start} throws is the wait's failure.
   */
  private static <T> CompletableFuture<Optional<Holder<T>>> watched(
      Waits waits, Duration timeout, Consumer<CompletableFuture<Optional<Holder<T>>>> start) {
    CompletableFuture<Optional<Holder<T>>> result = waits.begun(new CompletableFuture<>());
    waits
        .call(
            () -> {
              if (!result.isDone()) {
                start.accept(result);
                Future<?> timer =
                    waits
                        .scheduler()
                        .schedule(
                            () -> result.complete(Optional.empty()),
                            timeout.toMillis(),
                            TimeUnit.MILLISECONDS);
                result.whenComplete((v, e) -> timer.cancel(false));
              }
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

  private static void close(AutoCloseable watch) {
    try {
      watch.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the Node watch: " + e.getMessage(), e);
    }
  }

  /** What the condition held for; {@code value} is null when the object does not exist. */
  record Holder<T>(T value) {}
}

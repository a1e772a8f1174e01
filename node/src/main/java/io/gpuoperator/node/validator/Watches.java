package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
   * {@code timeout}.
   */
  static <T extends HasMetadata> Optional<Holder<T>> until(
      Resource<T> resource, Predicate<T> condition, Duration timeout) throws InterruptedException {
    CompletableFuture<List<T>> met =
        resource.informOnCondition(l -> condition.test(l.isEmpty() ? null : l.get(0)));
    try {
      List<T> l = met.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.of(new Holder<>(l.isEmpty() ? null : l.get(0)));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      throw KubernetesClientException.launderThrowable(e.getCause());
    } finally {
      met.cancel(true); // stops the informer when it is still running
    }
  }

  /** What the condition held for; {@code value} is null when the object does not exist. */
  record Holder<T>(T value) {}
}

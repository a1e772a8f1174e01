package io.gpuoperator.api;

import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/**
 * Informers that do not give up. fabric8's default handler retries a failed watch only once the
 * informer has started: when its first list fails, a timeout from a busy API server among others,
 * the informer stops for good ("listSyncAndWatch failed ..., will stop") and never hears of its
 * object again. On a large cluster's rollout that left device plugins deaf to their Node's config
 * label. These retry, with fabric8's back-off, after anything but a response they cannot decode
 * (which retrying would not mend).
 */
public final class Informers {
  /** Retries after every failure but a decoding one, started or not. */
  public static final ExceptionHandler RETRY =
      (started, error) -> !ExceptionHandler.isDeserializationException(error);

  private Informers() {}

  /**
   * A handler that hands {@code onObject} each object as the informer first lists it or sees it
   * added, then each change of it; deletions are not reported.
   */
  public static <T> ResourceEventHandler<T> onEach(Consumer<T> onObject) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        onObject.accept(object);
      }

      @Override
      public void onUpdate(T old, T object) {
        onObject.accept(object);
      }

      @Override
      public void onDelete(T object, boolean unknownFinalState) {}
    };
  }

  /**
   * A handler that hands {@code onChange} each change of an object the informer holds, but not the
   * objects it first lists or sees added, nor deletions.
   */
  public static <T> ResourceEventHandler<T> onChange(Consumer<T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {}

      @Override
      public void onUpdate(T old, T object) {
        onChange.accept(object);
      }

      @Override
      public void onDelete(T object, boolean unknownFinalState) {}
    };
  }

  /**
   * Starts an informer on {@code source} that delivers to {@code handler} and retries (see the
   * class comment). It does not wait for the first list: {@code start()} on the result returns the
   * future of that.
   *
   * @param resyncMillis the resync period, 0 for none
   */
  public static <T> SharedIndexInformer<T> start(
      Informable<T> source, ResourceEventHandler<? super T> handler, long resyncMillis) {
    SharedIndexInformer<T> informer = source.runnableInformer(resyncMillis);
    informer.exceptionHandler(RETRY);
    informer.addEventHandler(handler);
    informer.start();
    return informer;
  }
}

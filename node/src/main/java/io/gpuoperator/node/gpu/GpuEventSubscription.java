package io.gpuoperator.node.gpu;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A registration for GPU events ({@code nvmlEventSet_t}); close it when done. */
public interface GpuEventSubscription extends AutoCloseable {
  /**
   * Waits up to the timeout for the next event. Empty on timeout; throws {@link
   * GpuBackendException} when the backend fails (callers treat every device as unhealthy then).
   */
  Optional<GpuEvent> poll(Duration timeout) throws InterruptedException;

  /** Indices of the GPUs whose events this subscription receives. */
  List<Integer> registeredGpus();

  /** Indices of the GPUs that support none of the requested event types. */
  List<Integer> unsupportedGpus();

  @Override
  void close();

  /**
   * Closes {@code subscription} if there is one, ignoring a failure: a broken subscription is
   * dropped and a new one made at the caller's next pass. Always returns null, for the field.
   */
  static GpuEventSubscription closeQuietly(GpuEventSubscription subscription) {
    if (subscription != null) {
      try {
        subscription.close();
      } catch (RuntimeException ignored) {
        // Already broken.
      }
    }
    return null;
  }
}

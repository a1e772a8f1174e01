package io.gpuoperator.node.gpu;

/**
 * Sees what {@link HealthMonitor} sees, on the monitor's lane: every event it takes, every failure
 * of the event stream, and the end of every pass. For a consumer that needs more than the set of
 * unhealthy devices (the GPU fault conditions of the Node). Must not block: it runs on a lane
 * shared by every monitor of the JVM.
 */
public interface GpuEventObserver {
  /** An event taken from the backend, whether or not it made a device unhealthy. */
  void onEvent(GpuEvent event, long nowMillis);

  /** The event stream failed (every device is marked unhealthy). */
  void onBackendFailure(String why, long nowMillis);

  /** A pass ended: the events pending now have all been handed over. */
  void onPass(long nowMillis);
}

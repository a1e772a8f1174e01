package io.gpuoperator.node.exporter;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers the last XID error of each GPU ({@code DCGM_FI_DEV_XID_ERRORS}), from the backend's
 * event stream on a thread of its own. A failed stream is subscribed again after a pause; the
 * values already seen stay, as NVML's own last-XID field does until the driver reloads.
 */
public final class XidTracker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(XidTracker.class);

  /**
   * How long one wait for an event lasts (NVML's event wait, 5 s as NVIDIA's device plugin waits):
   * an event ends it at once and {@link #close()} interrupts it, so it bounds nothing but how often
   * an idle thread wakes (each simulated node runs one).
   */
  private static final Duration POLL = Duration.ofSeconds(5);

  private static final Duration RETRY = Duration.ofSeconds(5);

  private final GpuBackend backend;
  private final Map<Integer, Long> last = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean stopped;

  public XidTracker(GpuBackend backend) {
    this.backend = backend;
    this.thread = new Thread(this::run, "exporter-xid-events");
    this.thread.setDaemon(true);
  }

  /** Starts following events. */
  public XidTracker start() {
    thread.start();
    return this;
  }

  /** The last XID of a GPU, 0 when none was seen. */
  public long lastXid(int gpu) {
    return last.getOrDefault(gpu, 0L);
  }

  /** Records an event (also for tests that feed events directly). */
  void record(GpuEvent e) {
    if (e.type() == GpuEventType.XID_CRITICAL_ERROR) {
      last.put(e.gpuIndex(), e.data());
    }
  }

  private void run() {
    while (!stopped) {
      try (GpuEventSubscription s =
          backend.subscribe(EnumSet.of(GpuEventType.XID_CRITICAL_ERROR))) {
        while (!stopped) {
          Optional<GpuEvent> e = s.poll(POLL);
          e.ifPresent(this::record);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (GpuBackendException e) {
        if (stopped) {
          return;
        }
        LOG.warn(
            "XID event stream failed, subscribing again in {} s: {}",
            RETRY.toSeconds(),
            e.getMessage());
        try {
          Thread.sleep(RETRY.toMillis());
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}

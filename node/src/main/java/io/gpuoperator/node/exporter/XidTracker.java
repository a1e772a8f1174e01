package io.gpuoperator.node.exporter;

import io.gpuoperator.node.agent.AgentLane;
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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers the last XID error of each GPU ({@code DCGM_FI_DEV_XID_ERRORS}), from the backend's
 * event stream, taking the events pending every few seconds on a lane of the shared {@link
 * io.gpuoperator.node.agent.AgentThreads} (not a thread of its own waiting in the event wait: a
 * simulator runs hundreds of exporters). A failed stream is subscribed again after a pause; the
 * values already seen stay, as NVML's own last-XID field does until the driver reloads.
 */
public final class XidTracker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(XidTracker.class);

  /**
   * How often the events pending are taken (5 s, as NVIDIA's device plugin waits on NVML's event
   * set): an XID shows in the next collection after it, and collections are further apart.
   */
  private static final Duration POLL = Duration.ofSeconds(5);

  private static final Duration RETRY = Duration.ofSeconds(5);
  private static final int MAX_EVENTS_PER_PASS = 1_000;

  private final GpuBackend backend;
  private final Map<Integer, Long> last = new ConcurrentHashMap<>();
  private final AgentLane lane = new AgentLane("exporter-xid-events");
  private GpuEventSubscription subscription;
  private long retryAt;
  private volatile boolean stopped;

  public XidTracker(GpuBackend backend) {
    this.backend = backend;
  }

  /** Starts following events. */
  public XidTracker start() {
    lane.execute(this::pass);
    lane.scheduleBatched(this::pass, POLL.toMillis(), TimeUnit.MILLISECONDS);
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

  /** Takes the events pending now; subscribes first when needed (not before a failure's pause). */
  private synchronized void pass() {
    if (stopped || System.currentTimeMillis() < retryAt) {
      return;
    }
    try {
      if (subscription == null) {
        subscription = backend.subscribe(EnumSet.of(GpuEventType.XID_CRITICAL_ERROR));
      }
      for (int i = 0; i < MAX_EVENTS_PER_PASS; i++) {
        Optional<GpuEvent> e = subscription.poll(Duration.ZERO);
        if (e.isEmpty()) {
          return;
        }
        record(e.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (GpuBackendException e) {
      if (stopped) {
        return;
      }
      LOG.warn(
          "XID event stream failed, subscribing again in {} s: {}",
          RETRY.toSeconds(),
          e.getMessage());
      closeSubscription();
      retryAt = System.currentTimeMillis() + RETRY.toMillis();
    }
  }

  private void closeSubscription() {
    subscription = GpuEventSubscription.closeQuietly(subscription);
  }

  @Override
  public void close() {
    stopped = true;
    lane.close();
    synchronized (this) {
      closeSubscription();
    }
  }
}

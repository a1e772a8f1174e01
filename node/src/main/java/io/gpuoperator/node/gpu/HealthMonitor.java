package io.gpuoperator.node.gpu;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.node.agent.AgentLane;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the backend's XID and ECC events and reports the set of unhealthy device UUIDs whenever
 * it changes. It takes the events pending every poll interval on a lane of the shared {@link
 * io.gpuoperator.node.agent.AgentThreads} rather than blocking a thread of its own in the event
 * wait: a simulator runs hundreds of these. A failed event stream marks every device unhealthy and
 * is subscribed again until it works.
 */
public final class HealthMonitor implements AutoCloseable {
  /** Shared by the device plugin and the DRA plugin, under the device plugin's env name. */
  public static final Setting<Duration> RECOVERY_PERIOD =
      Setting.of("--health-recovery-period", Parse.duration(Duration.ZERO, Duration.ofDays(7)))
          .env("DP_HEALTH_RECOVERY_PERIOD")
          .label("DURATION")
          .help("Quiet time after which an unhealthy device is healthy again; 0: never.")
          .orElse(Duration.ofMinutes(5), "5m");

  private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);
  private static final int MAX_EVENTS_PER_PASS = 1_000;
  private static final Set<GpuEventType> EVENTS =
      EnumSet.of(
          GpuEventType.XID_CRITICAL_ERROR,
          GpuEventType.DOUBLE_BIT_ECC_ERROR,
          GpuEventType.SINGLE_BIT_ECC_ERROR);

  private final GpuBackend backend;
  private final XidPolicy policy;
  private final HealthTracker tracker;
  private final Consumer<Set<String>> listener;
  private final Duration pollInterval;
  private final AgentLane lane = new AgentLane("device-plugin-health");
  private final Object subscriptionLock = new Object();
  private GpuEventSubscription subscription;
  private volatile boolean running = true;
  private volatile Set<String> unhealthy = Set.of();
  private String lastFailure;
  private volatile GpuEventObserver observer;

  /**
   * @param pollInterval how often pending events are taken and recovery is checked (and the retry
   *     interval after a backend failure)
   */
  public HealthMonitor(
      GpuBackend backend,
      XidPolicy policy,
      Duration recovery,
      GpuInventory inventory,
      Duration pollInterval,
      Consumer<Set<String>> listener) {
    this.backend = backend;
    this.policy = policy;
    this.tracker = new HealthTracker(policy, recovery, inventory);
    this.listener = listener;
    this.pollInterval = pollInterval;
  }

  /** Hands every event, failure and pass to this observer too; call before {@link #start()}. */
  public HealthMonitor observe(GpuEventObserver observer) {
    this.observer = observer;
    return this;
  }

  /** Starts watching; with health checks disabled by env it does nothing. */
  public HealthMonitor start() {
    if (policy.checksDisabled()) {
      LOG.info("health checks disabled by {}", XidPolicy.DISABLE_HEALTHCHECKS.name());
      return this;
    }
    long period = Math.max(1, pollInterval.toMillis());
    // Subscribed at once (events from now on count); then batched with every monitor of the JVM.
    lane.execute(this::pass);
    lane.scheduleBatched(this::pass, period, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The UUIDs unhealthy now. */
  public Set<String> unhealthy() {
    return unhealthy;
  }

  /** Updates the devices events are mapped to. */
  public synchronized void inventory(GpuInventory inventory) {
    tracker.inventory(inventory);
  }

  /**
   * One pass: subscribes when needed, applies every event pending now, then lets devices whose
   * quiet period ended recover. Runs every poll interval on the monitor's lane; a failed event
   * stream marks every device unhealthy and is subscribed again at the next pass.
   */
  private void pass() {
    synchronized (subscriptionLock) {
      if (!running) {
        return;
      }
      try {
        if (subscription == null) {
          subscription = backend.subscribe(EVENTS);
          if (!subscription.unsupportedGpus().isEmpty()) {
            LOG.warn(
                "GPUs {} report no XID or ECC events: no health checks for them",
                subscription.unsupportedGpus());
          }
        }
        boolean changed = false;
        // Bounded, so a GPU that floods events still lets recovery below run.
        for (int i = 0; i < MAX_EVENTS_PER_PASS; i++) {
          Optional<GpuEvent> event = subscription.poll(Duration.ZERO);
          if (event.isEmpty()) {
            break;
          }
          synchronized (this) {
            changed |= apply(event.get(), System.currentTimeMillis());
          }
        }
        if (lastFailure != null) {
          LOG.info("GPU event stream works again; devices recover after the quiet period");
          lastFailure = null;
        }
        synchronized (this) {
          changed |= tracker.tick(System.currentTimeMillis());
        }
        if (changed) {
          publish();
        }
        GpuEventObserver o = observer;
        if (o != null) {
          o.onPass(System.currentTimeMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (GpuBackendException e) {
        if (!running) {
          return;
        }
        if (!java.util.Objects.equals(e.getMessage(), lastFailure)) {
          // Once per distinct failure: the retry runs every poll interval.
          LOG.error("GPU event stream failed, marking all devices unhealthy: {}", e.getMessage());
          lastFailure = e.getMessage();
        }
        boolean changed;
        synchronized (this) {
          changed = tracker.onBackendFailure(e.getMessage(), System.currentTimeMillis());
        }
        GpuEventObserver o = observer;
        if (o != null) {
          o.onBackendFailure(e.getMessage(), System.currentTimeMillis());
        }
        if (changed) {
          publish();
        }
        closeSubscription();
      }
    }
  }

  private void closeSubscription() {
    subscription = GpuEventSubscription.closeQuietly(subscription);
  }

  private boolean apply(GpuEvent event, long now) {
    boolean changed = tracker.onEvent(event, now);
    GpuEventObserver o = observer;
    if (o != null) {
      o.onEvent(event, now);
    }
    if (event.type() == GpuEventType.XID_CRITICAL_ERROR) {
      LOG.info(
          "GPU {} XID {} ({}): {}",
          event.gpuIndex(),
          event.data(),
          event.wholeGpu()
              ? "whole GPU"
              : "GI " + event.gpuInstanceId() + " CI " + event.computeInstanceId(),
          policy.critical(event.data()) ? "critical" : "ignored");
    }
    return changed;
  }

  private void publish() {
    Set<String> now;
    synchronized (this) {
      now = tracker.unhealthy();
      for (String uuid : now) {
        if (!unhealthy.contains(uuid)) {
          LOG.warn("device {} unhealthy: {}", uuid, tracker.reason(uuid));
        }
      }
      for (String uuid : unhealthy) {
        if (!now.contains(uuid)) {
          LOG.info("device {} healthy again after a quiet period", uuid);
        }
      }
      unhealthy = Set.copyOf(now);
    }
    listener.accept(now);
  }

  /** Why a device is unhealthy, or null. */
  public synchronized String reason(String uuid) {
    return tracker.reason(uuid);
  }

  @Override
  public void close() {
    running = false;
    lane.close();
    synchronized (subscriptionLock) {
      closeSubscription();
    }
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.ClockEventReasons;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.kubelet.FaultSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects a cluster file's GPU faults into the nodes' simulated GPUs at their times, counted from
 * {@link #start()} (the simulation calls it when it is first ready, so the plugins watch their
 * GPUs' health by then). A state (lost, thermal) is set before the fault's events are sent, so an
 * agent that reads the GPU after the XID never sees it healthy; an event waits until someone
 * subscribes to the node's events (it would be lost otherwise, as on a GPU nobody watches). One
 * thread for the whole schedule.
 */
final class FaultSchedule implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FaultSchedule.class);
  private static final long SUBSCRIBER_WAIT_MILLIS = 100;

  /** One thing done to a GPU, when. */
  record Injected(FaultSpec fault, String what, Instant at) {}

  private final List<FaultSpec> faults;
  private final SimulatedGpuBackends backends;
  private final List<Injected> injected = new ArrayList<>();
  private ScheduledExecutorService timer;
  private boolean closed;

  FaultSchedule(List<FaultSpec> faults, SimulatedGpuBackends backends) {
    this.faults = List.copyOf(faults);
    this.backends = backends;
  }

  /** Starts the clock; later calls do nothing. */
  synchronized void start() {
    if (timer != null || closed || faults.isEmpty()) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "simulate-faults");
              t.setDaemon(true);
              return t;
            });
    for (FaultSpec f : faults) {
      timer.schedule(() -> guarded(f, () -> begin(f)), f.at().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** A failure (the simulation closing under it) is logged, not lost in the executor. */
  private void guarded(FaultSpec f, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      LOG.warn("simulate: fault {} not injected: {}", f.describe(), e.toString());
    }
  }

  /** What was done so far, in order. */
  synchronized List<Injected> injected() {
    return List.copyOf(injected);
  }

  private SimulatedBackend backend(FaultSpec f) {
    GpuBackend b = backends.backend(f.node());
    return (SimulatedBackend) b;
  }

  private void begin(FaultSpec f) {
    SimulatedBackend b = backend(f);
    if (f.lost()) {
      b.setLost(f.gpu(), true);
      record(f, "fallen off the bus");
    } else if (f.thermal()) {
      b.setClockEventReasons(f.gpu(), ClockEventReasons.HW_THERMAL_SLOWDOWN);
      record(f, "thermal slowdown");
    }
    if (f.setsState() && f.recoverAfter() != null) {
      later(() -> guarded(f, () -> recover(f)), f.recoverAfter());
    }
    if (f.sendsEvents()) {
      send(f, 0);
    }
  }

  private void recover(FaultSpec f) {
    SimulatedBackend b = backend(f);
    if (f.lost()) {
      b.setLost(f.gpu(), false);
      record(f, "back on the bus");
    } else {
      b.setClockEventReasons(f.gpu(), 0);
      record(f, "thermal slowdown over");
    }
  }

  /** Sends event {@code i} of the fault, then schedules the next. */
  private void send(FaultSpec f, int i) {
    SimulatedBackend b = backend(f);
    if (b.subscriptions() == 0) {
      later(() -> guarded(f, () -> send(f, i)), Duration.ofMillis(SUBSCRIBER_WAIT_MILLIS));
      return;
    }
    if (f.xid() > 0) {
      b.injectXid(f.gpu(), f.xid());
      record(f, "XID " + f.xid());
    } else {
      b.injectEccError(f.gpu(), FaultSpec.DOUBLE_BIT.equals(f.ecc()));
      record(f, f.ecc() + " ECC error");
    }
    if (i + 1 < f.count()) {
      later(() -> guarded(f, () -> send(f, i + 1)), f.every());
    }
  }

  private synchronized void later(Runnable task, Duration delay) {
    if (!closed) {
      timer.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void record(FaultSpec f, String what) {
    synchronized (this) {
      injected.add(new Injected(f, what, Instant.now()));
    }
    LOG.info("simulate: fault: node {} GPU {}: {}", f.node(), f.gpu(), what);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}

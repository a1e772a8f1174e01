package io.gpuoperator.node.discovery;

import io.gpuoperator.node.agent.AgentLane;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.gpu.GpuBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The labelling loop: every interval, read the GPUs, compute the labels and publish them. A failed
 * pass keeps what was published before (labels are never dropped because a pass failed), and
 * stopping the agent leaves the labels in place, so a restart has no gap.
 */
public final class FeatureDiscoveryAgent {
  private static final Logger LOG = LoggerFactory.getLogger(FeatureDiscoveryAgent.class);

  private final GpuBackend backend;
  private final LabelSink sink;
  private final String migStrategy;
  private final Supplier<DevicePluginConfig> config;
  private final boolean noTimestamp;
  private final Supplier<String> machineType;
  private final Clock clock;
  private boolean stopped;
  private boolean wakeRequested;

  /**
   * An agent.
   *
   * @param backend the GPUs; null when the backend failed to start and failures are tolerated
   * @param config the device-plugin config, asked at every pass (it may be reloaded)
   * @param machineType supplies the machine type (null when unknown)
   */
  public FeatureDiscoveryAgent(
      GpuBackend backend,
      LabelSink sink,
      String migStrategy,
      Supplier<DevicePluginConfig> config,
      boolean noTimestamp,
      Supplier<String> machineType,
      Clock clock) {
    this.backend = backend;
    this.sink = sink;
    this.migStrategy = migStrategy;
    this.config = config;
    this.noTimestamp = noTimestamp;
    this.machineType = machineType;
    this.clock = clock;
  }

  /** Computes the labels once, without publishing. */
  public SortedMap<String, String> labels() {
    GpuSnapshot snapshot =
        backend == null ? new GpuSnapshot("", 0, List.of()) : GpuSnapshot.read(backend);
    return FeatureLabeler.labels(
        snapshot,
        new FeatureLabeler.Settings(
            migStrategy, config.get(), noTimestamp ? null : clock.instant(), machineType.get()));
  }

  /** One pass: compute and publish. Throws when it failed. */
  public SortedMap<String, String> pass() throws Exception {
    SortedMap<String, String> labels = labels();
    sink.publish(labels);
    LOG.debug("published {} labels to {}", labels.size(), sink.describe());
    return labels;
  }

  /**
   * Runs passes every interval until {@link #stop()}; a failed pass is logged and retried at the
   * next interval.
   */
  public void run(Duration interval) throws InterruptedException {
    LOG.info("labelling every {} into {}", interval, sink.describe());
    while (!isStopped()) {
      loggedPass();
      if (await(interval)) {
        break;
      }
    }
    LOG.info("stopped; labels left in place in {}", sink.describe());
  }

  /**
   * The passes of {@link #run} without a thread waiting between them: every interval on an {@link
   * AgentLane} of the JVM's shared agent threads (the simulator runs hundreds of these loops in one
   * JVM), the first after one interval (the caller has made the first pass). Closing the result
   * stops them; labels stay. An interval of zero or over ten years makes no further pass, as {@link
   * #run} then waits for a stop.
   */
  public AutoCloseable startPasses(Duration interval, String laneName) {
    LOG.info("labelling every {} into {}", interval, sink.describe());
    AgentLane lane = new AgentLane(laneName);
    if (interval.toMillis() > 0 && interval.compareTo(Duration.ofDays(3650)) <= 0) {
      lane.scheduleWithFixedDelay(
          this::loggedPass, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }
    return () -> {
      lane.close();
      LOG.info("stopped; labels left in place in {}", sink.describe());
    };
  }

  private void loggedPass() {
    try {
      SortedMap<String, String> labels = pass();
      LOG.info("pass done: {} labels in {}", labels.size(), sink.describe());
    } catch (Exception e) {
      LOG.error("labelling pass failed; the previous labels stay in place: {}", e.toString());
    }
  }

  /** Waits for the interval, a wake-up or a stop; true when stopped. */
  private synchronized boolean await(Duration interval) throws InterruptedException {
    long deadline =
        interval.toMillis() <= 0 || interval.compareTo(Duration.ofDays(3650)) > 0
            ? Long.MAX_VALUE
            : System.currentTimeMillis() + interval.toMillis();
    while (!stopped && !wakeRequested) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        break;
      }
      wait(left);
    }
    wakeRequested = false;
    return stopped;
  }

  private synchronized boolean isStopped() {
    return stopped;
  }

  /** Runs the next pass now (on SIGHUP, as the original restarts its loop). */
  public synchronized void wake() {
    wakeRequested = true;
    notifyAll();
  }

  /** Ends {@link #run} after the current pass; labels stay. */
  public synchronized void stop() {
    stopped = true;
    notifyAll();
  }
}

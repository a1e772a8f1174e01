package io.gpuoperator.node.discovery;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.gpu.GpuBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
  private final DevicePluginConfig config;
  private final boolean noTimestamp;
  private final Supplier<String> machineType;
  private final BooleanSupplier gpuPresent;
  private final Clock clock;
  private final CountDownLatch stopped = new CountDownLatch(1);

  /**
   * An agent.
   *
   * @param backend the GPUs; null when the backend failed to start and failures are tolerated
   * @param machineType supplies the machine type (null when unknown)
   * @param gpuPresent PCI discovery: whether an NVIDIA GPU is on the bus
   */
  public FeatureDiscoveryAgent(
      GpuBackend backend,
      LabelSink sink,
      String migStrategy,
      DevicePluginConfig config,
      boolean noTimestamp,
      Supplier<String> machineType,
      BooleanSupplier gpuPresent,
      Clock clock) {
    this.backend = backend;
    this.sink = sink;
    this.migStrategy = migStrategy;
    this.config = config;
    this.noTimestamp = noTimestamp;
    this.machineType = machineType;
    this.gpuPresent = gpuPresent;
    this.clock = clock;
  }

  /** Computes the labels once, without publishing. */
  public SortedMap<String, String> labels() {
    GpuSnapshot snapshot =
        backend == null ? new GpuSnapshot("", 0, List.of()) : GpuSnapshot.read(backend);
    return FeatureLabeler.labels(
        snapshot,
        new FeatureLabeler.Settings(
            migStrategy,
            config,
            noTimestamp ? null : clock.instant(),
            machineType.get(),
            gpuPresent.getAsBoolean()));
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
    while (stopped.getCount() > 0) {
      try {
        SortedMap<String, String> labels = pass();
        LOG.info("pass done: {} labels in {}", labels.size(), sink.describe());
      } catch (Exception e) {
        LOG.error("labelling pass failed; the previous labels stay in place: {}", e.toString());
      }
      long ms = interval.toMillis() <= 0 ? Long.MAX_VALUE : interval.toMillis();
      if (stopped.await(ms, TimeUnit.MILLISECONDS)) {
        break;
      }
    }
    LOG.info("stopped; labels left in place in {}", sink.describe());
  }

  /** Ends {@link #run} after the current pass; labels stay. */
  public void stop() {
    stopped.countDown();
  }
}

package io.gpuoperator.node.fault;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.AgentLane;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventObserver;
import io.gpuoperator.node.gpu.Telemetry;
import io.gpuoperator.node.gpu.XidPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a node's GPU faults as Node conditions, within a pass of the health monitor (about a
 * second) of the event. Events come from the {@link io.gpuoperator.node.gpu.HealthMonitor} that the
 * GPU-serving agent already runs; every poll interval it also reads each GPU's row remapping and
 * clock slowdowns, and notices a GPU that answers GPU_IS_LOST. The {@link FaultTracker} decides
 * what is reported; {@link NodeFaultConditions} writes it on this reporter's own lane, so a slow
 * API server never holds up the health lane. A failed write is logged once and retried at the next
 * pass; the conditions already on the Node at start are kept until their recovery period ends.
 */
public final class GpuFaultReporter implements GpuEventObserver, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GpuFaultReporter.class);

  private final GpuBackend backend;
  private final FaultClassifier classifier;
  private final FaultTracker tracker;
  private final NodeFaultConditions sink;
  private final Duration pollInterval;
  private final String nodeName;
  private final AgentLane lane = new AgentLane("gpu-fault-conditions");
  private boolean restored;

  /** The last reset request token answered (written on the lane, read by the node watch). */
  private volatile String answered;

  private boolean dirty = true;
  private String lastError;

  public GpuFaultReporter(
      GpuBackend backend,
      FaultClassifier classifier,
      FaultTracker tracker,
      NodeFaultConditions sink,
      Duration pollInterval,
      String nodeName) {
    this.backend = backend;
    this.classifier = classifier;
    this.tracker = tracker;
    this.sink = sink;
    this.pollInterval = pollInterval;
    this.nodeName = nodeName;
  }

  /**
   * The reporter the settings ask for, or null when {@link GpuFaultSettings#CONDITIONS} is off or
   * there is no client or node name to write with.
   */
  public static GpuFaultReporter fromSettings(
      GpuBackend backend,
      Settings settings,
      KubernetesClient client,
      String nodeName,
      Duration recovery) {
    if (client == null || nodeName == null || !settings.get(GpuFaultSettings.CONDITIONS)) {
      return null;
    }
    return new GpuFaultReporter(
        backend,
        new FaultClassifier(
            XidPolicy.from(settings), settings.get(GpuFaultSettings.RETIRED_ROWS_THRESHOLD)),
        new FaultTracker(settings.get(GpuFaultSettings.ESCALATION_WINDOW), recovery),
        new NodeFaultConditions(client, nodeName),
        settings.get(GpuFaultSettings.POLL_INTERVAL),
        nodeName);
  }

  /** Reads the Node's conditions (retried until it works) and starts the readings. */
  public GpuFaultReporter start() {
    lane.execute(this::poll);
    lane.scheduleBatched(this::poll, Math.max(1, pollInterval.toMillis()), TimeUnit.MILLISECONDS);
    return this;
  }

  @Override
  public void onEvent(GpuEvent event, long nowMillis) {
    Optional<GpuFault> fault = classifier.ofEvent(event, uuid(event));
    if (fault.isPresent()) {
      synchronized (tracker) {
        tracker.observe(fault.get(), nowMillis);
        dirty = true;
      }
    }
  }

  @Override
  public void onBackendFailure(String why, long nowMillis) {
    // Not a fault of one GPU: the readings find the GPUs that are lost.
  }

  @Override
  public void onPass(long nowMillis) {
    boolean flush;
    synchronized (tracker) {
      flush = dirty || tracker.tick(nowMillis);
    }
    if (flush) {
      lane.execute(this::flush);
    }
  }

  private String uuid(GpuEvent event) {
    if (event.gpuUuid() != null && !event.gpuUuid().isEmpty()) {
      return event.gpuUuid();
    }
    try {
      return backend.device(event.gpuIndex()).uuid();
    } catch (GpuBackendException e) {
      return "GPU index " + event.gpuIndex();
    }
  }

  /** Reads every GPU once, then writes what changed. */
  private void poll() {
    List<GpuFault> seen = new ArrayList<>();
    List<GpuDevice> gpus;
    try {
      gpus = backend.devices();
    } catch (GpuBackendException e) {
      flush();
      return;
    }
    for (GpuDevice gpu : gpus) {
      try {
        Telemetry t = backend.telemetry(gpu.index());
        long reasons;
        try {
          reasons = backend.clockEventReasons(gpu.index());
        } catch (GpuBackendException.NotSupported e) {
          reasons = Telemetry.UNSUPPORTED;
        }
        seen.addAll(classifier.ofReading(gpu.uuid(), t, reasons));
      } catch (GpuBackendException.GpuIsLost e) {
        seen.add(FaultClassifier.lost(gpu.uuid(), "NVML answers GPU_IS_LOST: " + e.getMessage()));
      } catch (GpuBackendException e) {
        // Another failure says nothing about this GPU's health; the next reading tries again.
      }
    }
    synchronized (tracker) {
      long now = System.currentTimeMillis();
      tracker.observeReading(seen, now);
      tracker.tick(now);
      dirty = true;
    }
    flush();
  }

  private void flush() {
    try {
      if (!restored) {
        restore();
      }
      List<FaultCondition> desired;
      synchronized (tracker) {
        desired = tracker.conditions();
        dirty = false;
      }
      if (sink.write(desired, System.currentTimeMillis())) {
        for (FaultCondition c : desired) {
          LOG.info(
              "kind=Node name={}: {}={} {}: {}",
              nodeName,
              c.type(),
              c.status(),
              c.reason(),
              c.message());
        }
      }
      lastError = null;
    } catch (RuntimeException e) {
      synchronized (tracker) {
        dirty = true;
      }
      if (!String.valueOf(e.getMessage()).equals(lastError)) {
        lastError = String.valueOf(e.getMessage());
        LOG.warn(
            "kind=Node name={}: GPU fault conditions not written, retrying: {}",
            nodeName,
            lastError);
      }
    }
  }

  /**
   * A change of this reporter's Node: a GPU reset request ({@link
   * GpuFaultContract#RESET_REQUESTED}) not answered yet is carried out on the reporter's lane, once
   * per request token, even across a restart (the answer on the Node says it was).
   */
  public void onNode(Node node) {
    Map<String, String> a = node.getMetadata().getAnnotations();
    String token = a == null ? null : a.get(GpuFaultContract.RESET_REQUESTED);
    if (token == null || token.equals(answered)) {
      return;
    }
    boolean answeredBefore =
        node.getStatus() != null
            && node.getStatus().getConditions() != null
            && node.getStatus().getConditions().stream()
                .anyMatch(
                    c ->
                        GpuFaultContract.RESET_CONDITION.equals(c.getType())
                            && c.getMessage() != null
                            && c.getMessage().startsWith(GpuFaultContract.answerPrefix(token)));
    if (answeredBefore) {
      answered = token;
      return;
    }
    lane.execute(() -> reset(token));
  }

  /**
   * Resets every GPU with a fault through the backend (every GPU when the faults were restored from
   * before a restart and their GPUs are unknown), forgets the faults of those reset, writes the
   * conditions (a reset GPU's turn False) and then the answer.
   */
  private void reset(String token) {
    if (token.equals(answered)) {
      return;
    }
    Set<String> faulty;
    synchronized (tracker) {
      faulty = tracker.faultyGpus();
    }
    Set<String> done = new TreeSet<>();
    List<String> failed = new ArrayList<>();
    try {
      for (GpuDevice gpu : backend.devices()) {
        if (!faulty.contains(gpu.uuid()) && !faulty.contains("")) {
          continue;
        }
        try {
          backend.resetGpu(gpu.index());
          done.add(gpu.uuid());
        } catch (GpuBackendException e) {
          failed.add(gpu.uuid() + " (" + e.getMessage() + ")");
        }
      }
    } catch (GpuBackendException e) {
      failed.add("the GPUs cannot be listed (" + e.getMessage() + ")");
    }
    synchronized (tracker) {
      tracker.reset(done);
      dirty = true;
    }
    flush();
    String detail =
        (done.isEmpty() ? "no GPU reset" : "reset " + String.join(", ", done))
            + (failed.isEmpty() ? "" : "; failed: " + String.join(", ", failed));
    try {
      sink.writeResetAnswer(token, failed.isEmpty(), detail, System.currentTimeMillis());
      answered = token;
      LOG.info("kind=Node name={}: GPU reset request {}: {}", nodeName, token, detail);
    } catch (RuntimeException e) {
      LOG.warn(
          "kind=Node name={}: GPU reset answer not written, the next node change retries: {}",
          nodeName,
          e.getMessage());
    }
  }

  private void restore() {
    List<NodeCondition> existing = sink.read();
    synchronized (tracker) {
      for (NodeCondition c : existing) {
        FaultClass cls = FaultClass.ofConditionType(c.getType());
        if ("True".equals(c.getStatus()) && cls != null) {
          long seen = millis(c.getLastHeartbeatTime());
          tracker.restore(
              cls, c.getReason(), c.getMessage(), millis(c.getLastTransitionTime()), seen);
          LOG.info(
              "kind=Node name={}: {} True before this start (last seen {}); kept until it recovers",
              nodeName,
              c.getType(),
              c.getLastHeartbeatTime());
        }
      }
    }
    restored = true;
  }

  private static long millis(String time) {
    try {
      return time == null ? System.currentTimeMillis() : Instant.parse(time).toEpochMilli();
    } catch (RuntimeException e) {
      return System.currentTimeMillis();
    }
  }

  @Override
  public void close() {
    lane.close();
  }
}

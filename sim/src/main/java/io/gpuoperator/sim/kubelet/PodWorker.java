package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one pod on a simulated node like a kubelet's pod worker: init containers in order, then the
 * containers, restarts per restartPolicy with back-off, status patches when something changed, and
 * the final delete once a terminating pod's containers have stopped. Its containers outlive the
 * worker, so a killed and restarted kubelet adopts them.
 *
 * <p>No thread of its own (a simulator runs thousands of pods): each pass ({@link #step()}) runs on
 * the kubelets' shared pod executor ({@link KubeletThreads#pods()}) when something woke the worker
 * (a pod update, a container that started, exited or changed readiness, the periodic tick that a
 * kubelet's pod sync also has), never two passes of one pod at once.
 */
final class PodWorker {
  private static final Logger LOG = LoggerFactory.getLogger(PodWorker.class);
  private static final long TICK_MS = 250;
  private static final long PREPARE_RETRY_MS = 1000;
  private static final long ERROR_RETRY_MS = 1000;

  private final SimulatedKubelet kubelet;
  private final String uid;
  private final String namespace;
  private final String name;
  private final String restartPolicy;
  private final List<ContainerSlot> init = new ArrayList<>();
  private final List<ContainerSlot> main = new ArrayList<>();
  private final Map<String, Instant> transitions = new HashMap<>();
  private final Instant startTime = Instant.now();
  private final String podIp;

  /** True while a pass is queued or running; a wake meanwhile sets {@link #dirty} instead. */
  private final AtomicBoolean queued = new AtomicBoolean();

  /** Guards {@link #stepping}: who runs a pass now, so {@link #pause} can interrupt only that. */
  private final Object stepGuard = new Object();

  private Thread stepping;
  private volatile boolean dirty;

  /**
   * Set by a pass that left work only time can bring due (a status deferred by coalescing, a
   * restart back-off, a resource preparation to retry): the tick wakes the worker only then. Every
   * other change (a container's readiness or exit, a pod update) wakes it by itself, so at
   * thousands of settled pods the tick costs a flag check instead of a pass each.
   */
  private volatile boolean awaitingTime;

  private volatile long retryAt;
  private volatile Pod latest;
  private volatile boolean deletedFromApi;
  private volatile boolean running;
  private boolean admitted;
  private boolean prepared;
  private long prepareRetryAt;
  private String notPrepared;
  private PodAdmitHandler.Refusal refusal;
  private volatile PodStatus lastPosted;
  private volatile long lastPostedAt;
  private String phase = "Pending";
  private Executor executor;
  private ScheduledExecutorService timer;
  private volatile boolean finished;

  PodWorker(SimulatedKubelet kubelet, Pod pod, String podIp) {
    this.kubelet = kubelet;
    this.uid = pod.getMetadata().getUid();
    this.namespace = pod.getMetadata().getNamespace();
    this.name = pod.getMetadata().getName();
    String policy = pod.getSpec().getRestartPolicy();
    this.restartPolicy = policy == null ? "Always" : policy;
    this.podIp = podIp;
    if (pod.getSpec().getInitContainers() != null) {
      for (Container c : pod.getSpec().getInitContainers()) {
        init.add(new ContainerSlot(c, true));
      }
    }
    for (Container c : pod.getSpec().getContainers()) {
      main.add(new ContainerSlot(c, false));
    }
    this.latest = pod;
  }

  String where() {
    return "pod " + namespace + "/" + name + " on node " + kubelet.nodeName();
  }

  boolean finished() {
    return finished;
  }

  /**
   * Starts (or, after a kubelet restart, resumes) the worker: passes run on {@code executor},
   * retries after an error on {@code timer}; the kubelet calls {@link #tick()}.
   */
  synchronized void start(Executor executor, ScheduledExecutorService timer) {
    if (finished || running) {
      return;
    }
    this.executor = executor;
    this.timer = timer;
    running = true;
    lastPosted = null; // a restarted kubelet re-posts everything, readiness included
    wake();
  }

  /**
   * Stops the worker (the kubelet was killed): no pass starts any more, the one running is
   * interrupted; the containers keep running. {@link #awaitPaused} waits for that pass to end.
   */
  synchronized void pause() {
    running = false;
    synchronized (stepGuard) {
      if (stepping != null) {
        stepping.interrupt();
      }
    }
  }

  /** Waits until no pass of this worker runs, at most until {@code deadlineMillis}. */
  void awaitPaused(long deadlineMillis) {
    synchronized (stepGuard) {
      long left;
      while (stepping != null && (left = deadlineMillis - System.currentTimeMillis()) > 0) {
        try {
          stepGuard.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  void update(Pod pod) {
    latest = pod;
    if (differsFromPosted(pod)) {
      // As the kubelet's status manager: the API server's status is not ours (the
      // node-lifecycle controller marked the pod not ready while the node was unreachable, or a
      // patch was lost): post ours again.
      lastPosted = null;
    }
    wake();
  }

  /** True when the pod's phase or a condition's status in the API differs from what we posted. */
  private boolean differsFromPosted(Pod pod) {
    PodStatus posted = lastPosted;
    PodStatus api = pod.getStatus();
    if (posted == null || api == null) {
      return false;
    }
    if (!java.util.Objects.equals(posted.getPhase(), api.getPhase())) {
      return true;
    }
    if (posted.getConditions() == null) {
      return false;
    }
    for (var c : posted.getConditions()) {
      boolean same =
          api.getConditions() != null
              && api.getConditions().stream()
                  .anyMatch(
                      a -> a.getType().equals(c.getType()) && a.getStatus().equals(c.getStatus()));
      if (!same) {
        return true;
      }
    }
    return false;
  }

  void deletedFromApi() {
    deletedFromApi = true;
    wake();
  }

  /** Kills every container (the node is shutting down). */
  void killContainers() {
    for (ContainerSlot s : all()) {
      if (s.process != null) {
        s.process.stop();
      }
    }
  }

  /**
   * The tick period for a kubelet's workers: with status coalescing (a large cluster) that
   * interval, as the tick is what posts a deferred status; otherwise 250 ms.
   */
  static long tickMillis(long statusCoalescingMillis) {
    return Math.max(TICK_MS, statusCoalescingMillis);
  }

  /**
   * The kubelet's periodic tick (one task per kubelet for all its workers, not one per pod: at
   * 5,000 pods that was 5,000 timer wake-ups a second): a pass when time-based work is pending.
   */
  void tick() {
    if (awaitingTime || lastPosted == null) {
      wake();
    }
  }

  /** Asks for a pass: queues one unless one is queued or running (that one then runs again). */
  private void wake() {
    dirty = true;
    if (running && !finished && queued.compareAndSet(false, true)) {
      try {
        executor.execute(this::runPasses);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        queued.set(false);
      }
    }
  }

  /** Runs passes while something woke the worker during the last one. */
  private void runPasses() {
    synchronized (stepGuard) {
      if (!running) {
        queued.set(false);
        return;
      }
      stepping = Thread.currentThread();
    }
    try {
      while (running && !finished && dirty) {
        dirty = false;
        if (System.currentTimeMillis() < retryAt) {
          break; // after an error, as the kubelet's pod sync backs off; a wake at retryAt follows
        }
        if (passOnce()) {
          finished = true;
        }
      }
    } finally {
      synchronized (stepGuard) {
        stepping = null;
        Thread.interrupted(); // a pause() meant this pass, not the pool's next task
        stepGuard.notifyAll();
      }
      queued.set(false);
    }
    if (dirty && running && !finished) {
      wake(); // woken between the loop's last check and queued's reset
    }
  }

  /** One pass and its errors; true when the pod is done with. */
  private boolean passOnce() {
    try {
      return step();
    } catch (KubernetesClientException e) {
      if (running) {
        LOG.warn("{}: API error {} {}", where(), e.getCode(), e.getMessage());
        retryLater();
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: worker error", where(), e);
      retryLater();
    }
    return false;
  }

  private void retryLater() {
    retryAt = System.currentTimeMillis() + ERROR_RETRY_MS;
    ScheduledExecutorService t = timer;
    if (t != null) {
      t.schedule(this::wake, ERROR_RETRY_MS, TimeUnit.MILLISECONDS);
    }
  }

  /** One pass; true when the pod is done with (deleted). */
  private boolean step() {
    awaitingTime = false;
    Pod pod = latest;
    if (deletedFromApi) {
      killContainers();
      kubelet.admission().podGone(pod);
      return true;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      killContainers();
      kubelet.admission().podGone(pod);
      kubelet.deletePodNow(namespace, name, uid);
      LOG.info("{}: containers stopped, deletion finished", where());
      return true;
    }
    boolean terminal = phase.equals("Succeeded") || phase.equals("Failed");
    if (!terminal) {
      if (!admitted) {
        refusal = kubelet.admission().admit(pod);
        admitted = true;
        if (refusal != null) {
          LOG.info("{}: refused at admission: {} {}", where(), refusal.reason(), refusal.message());
          kubelet.admission().podGone(pod);
        }
      }
      if (refusal == null && prepareResources(pod)) {
        advance(pod);
      }
    }
    post();
    return false;
  }

  /**
   * Prepares the pod's resources (DRA claims) before its first container starts; until they are,
   * the pod stays Pending and the kubelet tries again every second, as its pod sync would.
   */
  private boolean prepareResources(Pod pod) {
    if (prepared) {
      return true;
    }
    long now = System.currentTimeMillis();
    if (now < prepareRetryAt) {
      awaitingTime = true;
      return false;
    }
    String why = kubelet.admission().prepare(pod);
    if (why == null) {
      prepared = true;
      if (notPrepared != null) {
        LOG.info("{}: resources prepared", where());
      }
      return true;
    }
    if (!why.equals(notPrepared)) {
      LOG.info("{}: resources not prepared yet: {}", where(), why);
    }
    notPrepared = why;
    prepareRetryAt = now + PREPARE_RETRY_MS;
    awaitingTime = true;
    return false;
  }

  private void advance(Pod pod) {
    Instant now = Instant.now();
    for (ContainerSlot s : init) {
      if (s.succeeded()) {
        continue;
      }
      if (s.process == null) {
        launch(pod, s);
      } else if (s.exited()) {
        if (!"Never".equals(restartPolicy)) {
          restartWhenDue(pod, s, now);
        }
      }
      return; // init containers run one at a time, in order
    }
    for (ContainerSlot s : main) {
      if (s.process == null) {
        launch(pod, s);
      } else if (s.exited()) {
        boolean restart =
            "Always".equals(restartPolicy)
                || ("OnFailure".equals(restartPolicy) && s.process.exitCode() != 0);
        if (restart) {
          restartWhenDue(pod, s, now);
        }
      }
    }
  }

  private void restartWhenDue(Pod pod, ContainerSlot s, Instant now) {
    if (s.restartAt == null) {
      s.restartAt = s.process.finishedAt().plus(kubelet.options().backOff(s.restartCount));
      LOG.info(
          "{}: container {} exited with {}, restart {} at {}",
          where(),
          s.name(),
          s.process.exitCode(),
          s.restartCount + 1,
          s.restartAt);
    }
    if (now.isBefore(s.restartAt)) {
      awaitingTime = true;
    } else {
      s.previous = s.process;
      s.previousId = s.containerId;
      s.restartCount++;
      s.restartAt = null;
      launch(pod, s);
    }
  }

  private void launch(Pod pod, ContainerSlot s) {
    ContainerRunner runner = kubelet.runners().select(kubelet.description(), pod, s.spec, s.init);
    ContainerContext ctx =
        new ContainerContext(
            kubelet.nodeName(),
            kubelet.dirs(),
            pod,
            s.spec,
            s.init,
            env(pod, s.spec),
            kubelet.agentClient(),
            kubelet.timer(),
            kubelet.serviceAccountTokens(),
            kubelet.nodeCache());
    s.containerId =
        "containerd://" + PodStatusModel.sha256(uid + "/" + s.name() + "/" + s.restartCount);
    s.process = runner.start(ctx);
    s.process.addListener(this::wake);
    if (!s.init && HttpProber.hasHttpProbes(s.spec)) {
      HttpProber.watch(namespace + "/" + name, s.spec, s.process);
    }
    LOG.debug(
        "{}: started container {} ({})", where(), s.name(), runner.getClass().getSimpleName());
  }

  private Map<String, String> env(Pod pod, Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    if (c.getEnv() == null) {
      return env;
    }
    for (EnvVar e : c.getEnv()) {
      if (e.getValue() != null) {
        env.put(e.getName(), e.getValue());
      } else if (e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null) {
        String path = e.getValueFrom().getFieldRef().getFieldPath();
        String value =
            switch (path) {
              case "spec.nodeName" -> kubelet.nodeName();
              case "metadata.name" -> pod.getMetadata().getName();
              case "metadata.namespace" -> pod.getMetadata().getNamespace();
              case "metadata.uid" -> uid;
              case "status.podIP" -> podIp;
              case "status.hostIP" -> kubelet.nodeIp();
              default -> null;
            };
        if (value != null) {
          env.put(e.getName(), value);
        }
      } else {
        env.put(e.getName(), "");
      }
    }
    return env;
  }

  private void post() {
    PodStatus status;
    if (refusal != null) {
      phase = "Failed";
      status =
          new PodStatusBuilder()
              .withPhase("Failed")
              .withReason(refusal.reason())
              .withMessage("Pod " + refusal.message())
              .withStartTime(NodeModel.rfc3339(startTime))
              .build();
    } else {
      phase = PodStatusModel.phase(init, main, restartPolicy);
      String ip = Boolean.TRUE.equals(latest.getSpec().getHostNetwork()) ? kubelet.nodeIp() : podIp;
      status =
          PodStatusModel.status(phase, init, main, transitions, startTime, kubelet.nodeIp(), ip);
    }
    if (status.equals(lastPosted)) {
      return;
    }
    long now = System.currentTimeMillis();
    boolean terminal = phase.equals("Succeeded") || phase.equals("Failed");
    if (lastPosted != null && !terminal && now - lastPostedAt < kubelet.statusCoalescing()) {
      awaitingTime = true; // a later pass (the tick) posts it once the interval has passed
      return;
    }
    String patch = "{\"status\":" + Serialization.asJson(status) + "}";
    kubelet
        .client()
        .pods()
        .inNamespace(namespace)
        .resource(PatchTarget.of(Pod::new, namespace, name))
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    if (lastPosted == null || !phase.equals(lastPosted.getPhase())) {
      LOG.info("{}: phase {}", where(), phase);
    }
    lastPosted = status;
    lastPostedAt = now;
    if (phase.equals("Succeeded") || phase.equals("Failed")) {
      kubelet.admission().podGone(latest);
    }
  }

  private List<ContainerSlot> all() {
    List<ContainerSlot> out = new ArrayList<>(init);
    out.addAll(main);
    return out;
  }
}

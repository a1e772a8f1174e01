package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet stand-in for one simulated node, in-process, using the node's own credential: registers
 * the Node with NFD-style labels, renews its Lease, keeps its Ready condition, runs the pods bound
 * to it ({@link PodWorker}) through pluggable {@link ContainerRunner}s, and finishes their
 * deletion. {@link #kill()} stops it like a crashed kubelet (containers keep running), {@link
 * #start()} again recovers the node and re-posts pod status, {@link #close()} stops everything.
 */
public final class SimulatedKubelet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubelet.class);
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final NodeDescription description;
  private final NodeDirs dirs;
  private final int index;
  private final ContainerRunners runners;
  private final KubernetesClient agentClient;
  private final KubeletOptions options;
  private final List<PodAdmitHandler> admitHandlers;
  private final List<KubeletLifecycle> lifecycles;
  private final List<PodPreparer> preparers;
  private final ScheduledExecutorService timer;
  private final ServiceAccountTokens serviceAccountTokens;
  private final Map<String, PodWorker> workers = new ConcurrentHashMap<>();
  private final Set<String> released = ConcurrentHashMap.newKeySet();
  private final Map<String, Pod> admitted = new ConcurrentHashMap<>();
  private final AtomicInteger podCounter = new AtomicInteger();
  private final List<ScheduledFuture<?>> heartbeats = new ArrayList<>();
  private SharedIndexInformer<Pod> informer;
  private volatile boolean running;
  private volatile boolean closed;
  private boolean startedBefore;
  private String lastRenew = "";
  private volatile Instant lastStatus = Instant.EPOCH;

  private SimulatedKubelet(Builder b) {
    this.client = b.client;
    this.description = b.description;
    this.dirs = b.dirs;
    this.index = b.index;
    this.runners = b.runners;
    this.agentClient = b.agentClient;
    this.options = b.options;
    this.admitHandlers = List.copyOf(b.admitHandlers);
    this.lifecycles = List.copyOf(b.lifecycles);
    this.preparers = List.copyOf(b.preparers);
    // Shared by every kubelet of the JVM: a node's containers cancel their ticks when they stop.
    this.timer = KubeletThreads.timer();
    this.serviceAccountTokens = new ServiceAccountTokens(client);
  }

  /**
   * A kubelet for the node; {@code nodeClient} must authenticate as {@code system:node:<name>} (see
   * {@code ControlPlane.nodeClient}).
   */
  public static Builder builder(KubernetesClient nodeClient, NodeDescription node, NodeDirs dirs) {
    return new Builder(nodeClient, node, dirs);
  }

  public String nodeName() {
    return description.name();
  }

  public NodeDescription description() {
    return description;
  }

  public NodeDirs dirs() {
    return dirs;
  }

  public String nodeIp() {
    return NodeModel.nodeIp(index);
  }

  public boolean isRunning() {
    return running;
  }

  KubernetesClient client() {
    return client;
  }

  KubernetesClient agentClient() {
    return agentClient;
  }

  KubeletOptions options() {
    return options;
  }

  ContainerRunners runners() {
    return runners;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  ServiceAccountTokens serviceAccountTokens() {
    return serviceAccountTokens;
  }

  /**
   * Registers the node (or, after {@link #kill()}, recovers it: all conditions with a fresh
   * heartbeat), starts the lease and status heartbeats, and runs the pods bound to the node.
   */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("kubelet of node " + nodeName() + " is closed");
    }
    if (running) {
      return;
    }
    running = true;
    register();
    renewLease();
    long lease = options.leaseRenewInterval().toMillis();
    ScheduledExecutorService api = KubeletThreads.api();
    heartbeats.add(
        api.scheduleWithFixedDelay(this::renewLeaseQuietly, lease, lease, TimeUnit.MILLISECONDS));
    // As the kubelet's nodeStatusUpdateFrequency: every lease interval, compare with what the API
    // server holds and post when it differs (e.g. Ready=Unknown set by the node-lifecycle
    // controller after an outage) or when the report interval has passed.
    heartbeats.add(
        api.scheduleWithFixedDelay(this::syncStatusQuietly, lease, lease, TimeUnit.MILLISECONDS));
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", nodeName())
            .inform(new PodEvents(), 0);
    // Pods deleted while the kubelet was down are not in the fresh list: finish them.
    Set<String> present = new HashSet<>();
    for (Pod p : informer.getStore().list()) {
      present.add(p.getMetadata().getUid());
    }
    for (Map.Entry<String, PodWorker> e : workers.entrySet()) {
      if (!present.contains(e.getKey())) {
        e.getValue().deletedFromApi();
      }
      e.getValue().start(KubeletThreads.pods(), timer);
    }
    for (KubeletLifecycle l : lifecycles) {
      l.started(startedBefore);
    }
    startedBefore = true;
    LOG.info("kubelet of node {} running ({} pods known)", nodeName(), workers.size());
  }

  /**
   * Stops the kubelet like a crash: no more lease renewals, status or pod updates. Containers keep
   * running; a later {@link #start()} adopts them.
   */
  public synchronized void kill() {
    if (!running) {
      return;
    }
    running = false;
    if (informer != null) {
      informer.close();
    }
    // A heartbeat that is running finishes (the lease renewal holds this lock and sees !running).
    heartbeats.forEach(f -> f.cancel(false));
    heartbeats.clear();
    for (PodWorker w : workers.values()) {
      w.pause();
    }
    long deadline = System.currentTimeMillis() + 10_000;
    for (PodWorker w : workers.values()) {
      w.awaitPaused(deadline);
    }
    for (KubeletLifecycle l : lifecycles) {
      l.killed();
    }
    LOG.info("kubelet of node {} killed", nodeName());
  }

  /** Kills the kubelet and every container of the node. The Node object stays. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    kill();
    closed = true;
    for (KubeletLifecycle l : lifecycles) {
      l.closing();
    }
    for (PodWorker w : workers.values()) {
      w.killContainers();
    }
    for (KubeletLifecycle l : lifecycles) {
      l.closed();
    }
  }

  private void register() {
    Instant now = Instant.now();
    Node existing = client.nodes().withName(nodeName()).get();
    if (existing == null) {
      client.nodes().resource(NodeModel.node(description, index, now)).create();
      lastStatus = now;
      LOG.info("node {} registered", nodeName());
    } else {
      patchStatus(NodeModel.status(description, index, now, now));
      lastStatus = now;
      LOG.info("node {} status recovered", nodeName());
    }
  }

  private void syncStatusQuietly() {
    if (!running) {
      return;
    }
    try {
      Node node = client.nodes().withName(nodeName()).get();
      Instant now = Instant.now();
      Instant since = now;
      List<NodeCondition> current =
          node == null || node.getStatus() == null || node.getStatus().getConditions() == null
              ? List.of()
              : node.getStatus().getConditions();
      for (NodeCondition c : current) {
        if (c.getType().equals("Ready") && c.getStatus().equals("True")) {
          since = Instant.parse(c.getLastTransitionTime());
        }
      }
      List<NodeCondition> wanted = NodeModel.conditions(now, since);
      boolean differs = !sameStatuses(current, wanted);
      boolean due = now.isAfter(lastStatus.plus(options.statusInterval()));
      if (!differs && !due) {
        return;
      }
      NodeStatus status = new NodeStatus();
      status.setConditions(wanted);
      patchStatus(status);
      lastStatus = now;
      if (differs) {
        LOG.info("node {}: status re-posted (the API server's differed)", nodeName());
      }
    } catch (RuntimeException e) {
      LOG.warn("node {}: status heartbeat failed: {}", nodeName(), e.toString());
    }
  }

  /** True when every wanted condition is in {@code current} with the same status. */
  static boolean sameStatuses(List<NodeCondition> current, List<NodeCondition> wanted) {
    for (NodeCondition w : wanted) {
      boolean found =
          current.stream()
              .anyMatch(
                  c -> c.getType().equals(w.getType()) && c.getStatus().equals(w.getStatus()));
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private void patchStatus(NodeStatus status) {
    String patch = "{\"status\":" + Serialization.asJson(status) + "}";
    client
        .nodes()
        .withName(nodeName())
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
  }

  private synchronized void renewLeaseQuietly() {
    if (!running) {
      return; // killed while this run was queued
    }
    try {
      renewLease();
    } catch (RuntimeException e) {
      LOG.warn("node {}: lease renewal failed: {}", nodeName(), e.toString());
    }
  }

  private synchronized void renewLease() {
    String now = MICRO_TIME.format(Instant.now());
    if (now.compareTo(lastRenew) <= 0) {
      now = MICRO_TIME.format(Instant.parse(lastRenew).plusNanos(1000));
    }
    var leases = client.leases().inNamespace(KubeletConstants.LEASE_NAMESPACE);
    if (leases.withName(nodeName()).get() == null) {
      Node node = client.nodes().withName(nodeName()).get();
      Lease lease =
          new LeaseBuilder()
              .withNewMetadata()
              .withName(nodeName())
              .withNamespace(KubeletConstants.LEASE_NAMESPACE)
              .addNewOwnerReference()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(nodeName())
              .withUid(node.getMetadata().getUid())
              .endOwnerReference()
              .endMetadata()
              .withNewSpec()
              .withHolderIdentity(nodeName())
              .withLeaseDurationSeconds(KubeletConstants.LEASE_DURATION_SECONDS)
              .withRenewTime(java.time.ZonedDateTime.parse(now))
              .endSpec()
              .build();
      try {
        leases.resource(lease).create();
        lastRenew = now;
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    leases
        .withName(nodeName())
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"renewTime\":\"" + now + "\",\"holderIdentity\":\"" + nodeName() + "\"}}");
    lastRenew = now;
  }

  /**
   * Admits a pod like the kubelet: extended resources must fit the node's allocatable minus what
   * admitted pods hold, then every handler must accept it. Serialised, so two pods never both get
   * the last GPU.
   */
  synchronized PodAdmitHandler.Refusal admit(Pod pod) {
    Node node = client.nodes().withName(nodeName()).get();
    Map<String, io.fabric8.kubernetes.api.model.Quantity> allocatable =
        node == null || node.getStatus() == null ? Map.of() : node.getStatus().getAllocatable();
    PodAdmitHandler.Refusal refusal = ResourceFit.check(pod, allocatable, admitted.values());
    if (refusal != null) {
      return refusal;
    }
    for (PodAdmitHandler h : admitHandlers) {
      refusal = h.admit(pod);
      if (refusal != null) {
        return refusal;
      }
    }
    admitted.put(pod.getMetadata().getUid(), pod);
    return null;
  }

  /**
   * Prepares the pod's resources (DRA claims) through every preparer; null when all are ready, else
   * the first reason why not yet.
   */
  String prepare(Pod pod) {
    for (PodPreparer p : preparers) {
      String why = p.prepare(pod);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  /** Releases what admission handlers and preparers gave the pod, once. */
  void podGone(Pod pod) {
    synchronized (this) {
      admitted.remove(pod.getMetadata().getUid());
    }
    if (released.add(pod.getMetadata().getUid())) {
      for (PodPreparer p : preparers) {
        try {
          p.unprepare(pod);
        } catch (RuntimeException e) {
          LOG.warn(
              "node {}: unprepare of pod {} failed: {}",
              nodeName(),
              pod.getMetadata().getName(),
              e.toString());
        }
      }
      for (PodAdmitHandler h : admitHandlers) {
        try {
          h.podRemoved(pod);
        } catch (RuntimeException e) {
          LOG.warn(
              "node {}: release of pod {} failed: {}",
              nodeName(),
              pod.getMetadata().getName(),
              e.toString());
        }
      }
    }
  }

  /** Deletes a pod with grace period 0 and a UID precondition, as a kubelet finishes a deletion. */
  void deletePodNow(String namespace, String name, String uid) {
    var http = client.getHttpClient();
    String url =
        client.getMasterUrl().toString().replaceAll("/$", "")
            + "/api/v1/namespaces/"
            + namespace
            + "/pods/"
            + name;
    String body =
        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0,"
            + "\"preconditions\":{\"uid\":\""
            + uid
            + "\"}}";
    HttpRequest req =
        http.newHttpRequestBuilder().uri(url).method("DELETE", "application/json", body).build();
    try {
      HttpResponse<String> resp = http.sendAsync(req, String.class).get(30, TimeUnit.SECONDS);
      int code = resp.code();
      if (code != 200 && code != 202 && code != 404 && code != 409) {
        throw new KubernetesClientException(
            "deleting pod " + namespace + "/" + name + ": HTTP " + code + " " + resp.body(),
            code,
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new KubernetesClientException("deleting pod " + namespace + "/" + name + ": " + e, e);
    }
  }

  private final class PodEvents implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod) {
      onUpdate(null, pod);
    }

    @Override
    public void onUpdate(Pod old, Pod pod) {
      if (!running) {
        return;
      }
      String uid = pod.getMetadata().getUid();
      PodWorker w = workers.get(uid);
      if (w == null) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (("Succeeded".equals(phase) || "Failed".equals(phase))
            && pod.getMetadata().getDeletionTimestamp() == null) {
          return; // finished before this kubelet knew it
        }
        w =
            new PodWorker(
                SimulatedKubelet.this, pod, NodeModel.podIp(index, podCounter.getAndIncrement()));
        workers.put(uid, w);
        w.start(KubeletThreads.pods(), timer);
      } else {
        w.update(pod);
      }
    }

    @Override
    public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
      PodWorker w = workers.remove(pod.getMetadata().getUid());
      if (w != null) {
        w.deletedFromApi();
      }
    }
  }

  /** Options for one kubelet. */
  public static final class Builder {
    private final KubernetesClient client;
    private final NodeDescription description;
    private final NodeDirs dirs;
    private int index;
    private ContainerRunners runners = ContainerRunners.declaredOnly();
    private KubernetesClient agentClient;
    private KubeletOptions options = KubeletOptions.defaults();
    private final List<PodAdmitHandler> admitHandlers = new ArrayList<>();
    private final List<KubeletLifecycle> lifecycles = new ArrayList<>();
    private final List<PodPreparer> preparers = new ArrayList<>();

    private Builder(KubernetesClient client, NodeDescription description, NodeDirs dirs) {
      this.client = client;
      this.description = description;
      this.dirs = dirs;
    }

    public NodeDescription description() {
      return description;
    }

    public NodeDirs dirs() {
      return dirs;
    }

    /** The node's own client, the one the kubelet uses. */
    public KubernetesClient client() {
      return client;
    }

    /** The node's position in the cluster; gives it distinct node and pod IPs. */
    public Builder index(int index) {
      this.index = index;
      return this;
    }

    public Builder runners(ContainerRunners runners) {
      this.runners = runners;
      return this;
    }

    /** The client in-process agents get (a service-account stand-in). */
    public Builder agentClient(KubernetesClient client) {
      this.agentClient = client;
      return this;
    }

    public Builder options(KubeletOptions options) {
      this.options = options;
      return this;
    }

    public Builder admitHandler(PodAdmitHandler handler) {
      this.admitHandlers.add(handler);
      return this;
    }

    /** Prepares pods' resources before their containers start (DRA claims). */
    public Builder preparer(PodPreparer preparer) {
      this.preparers.add(preparer);
      return this;
    }

    public Builder lifecycle(KubeletLifecycle listener) {
      this.lifecycles.add(listener);
      return this;
    }

    public SimulatedKubelet build() {
      return new SimulatedKubelet(this);
    }
  }
}

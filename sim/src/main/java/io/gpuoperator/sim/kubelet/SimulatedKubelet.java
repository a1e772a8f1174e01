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
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.sim.controlplane.StreamingInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

  /** How long a start waits for the first list of the node's pods, retries included. */
  private static final Duration POD_LIST_WAIT = Duration.ofMinutes(2);

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
  private final NodeCache nodeCache;
  private final Duration statusCoalescing;
  private final Map<String, PodWorker> workers = new ConcurrentHashMap<>();
  private final Set<String> released = ConcurrentHashMap.newKeySet();
  private final Map<String, Pod> admitted = new ConcurrentHashMap<>();
  private final AtomicInteger podCounter = new AtomicInteger();
  private final List<Future<?>> heartbeats = new ArrayList<>();
  private StreamingInformer<Pod> informer;
  private volatile boolean running;
  private volatile boolean closed;
  private boolean startedBefore;

  /**
   * Guards {@link #lastRenew}, {@link #renewing} and {@link #heldLease}, never held across a
   * request: the shared timer sends renewals and must not wait behind a kubelet's own monitor (held
   * by admission).
   */
  private final Object leaseLock = new Object();

  /** Serialises blocking lease renewals (start, and a Lease found gone). */
  private final Object leaseCreateLock = new Object();

  /** Serialises admissions (two pods never both get the last GPU). */
  private final Object admitLock = new Object();

  private String lastRenew = "";
  private boolean renewing;
  private Lease heldLease;
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
    this.nodeCache = b.nodeCache;
    this.statusCoalescing = b.statusCoalescing;
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

  /** The simulation's shared watch of every Node, or null. */
  NodeCache nodeCache() {
    return nodeCache;
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

  /** Least milliseconds between two status patches of a pod (0: every change at once). */
  long statusCoalescing() {
    return statusCoalescing.toMillis();
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
    synchronized (leaseCreateLock) {
      renewLease();
    }
    long lease = options.leaseRenewInterval().toMillis();
    ScheduledExecutorService api = KubeletThreads.api();
    // Renewals are sent without holding a thread (one in flight per node): at 1,000 nodes that is
    // 100 a second, which a few threads waiting on a busy API server could not keep up with.
    heartbeats.add(
        KubeletThreads.timer()
            .scheduleWithFixedDelay(this::renewLeaseAsync, lease, lease, TimeUnit.MILLISECONDS));
    // As the kubelet's nodeStatusUpdateFrequency: every lease interval, compare with what the API
    // server holds and post when it differs (e.g. Ready=Unknown set by the node-lifecycle
    // controller after an outage) or when the report interval has passed.
    heartbeats.add(
        api.scheduleWithFixedDelay(this::syncStatusQuietly, lease, lease, TimeUnit.MILLISECONDS));
    // One tick for all the node's pod workers (each acts only when time-based work is pending).
    long tick = PodWorker.tickMillis(statusCoalescing.toMillis());
    // Batched with every kubelet's tick of the JVM: one timer wake-up per period for all nodes.
    heartbeats.add(KubeletThreads.batched(tick, () -> workers.values().forEach(PodWorker::tick)));
    // Retried when the first list fails (a busy API server's timeout) instead of stopping for
    // good, but waited for: the pods deleted while the kubelet was down are found from that list.
    informer =
        new StreamingInformer<>(client, Pod.class, null, "spec.nodeName=" + nodeName())
            .addEventHandler(new PodEvents());
    try {
      informer.start().get(POD_LIST_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      informer.close();
      throw new KubernetesClientException(
          "node " + nodeName() + ": no list of its pods within " + POD_LIST_WAIT, e);
    } catch (InterruptedException e) {
      informer.close();
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("node " + nodeName() + ": interrupted at start", e);
    }
    // Pods deleted while the kubelet was down are not in the fresh list: finish them.
    Set<String> present = new HashSet<>();
    for (Pod p : informer.list()) {
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
    // Ticks queued from now on see !running; a renewal already sent may still land, as a crashed
    // kubelet's last request may.
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
      Node node =
          nodeCache != null ? nodeCache.get(nodeName()) : client.nodes().withName(nodeName()).get();
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
        .resource(PatchTarget.of(Node::new, null, nodeName()))
        .subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
  }

  /**
   * Sends a lease renewal and returns: the response is handled on the client's threads. As the
   * kubelet, an update (PUT) of the Lease it last got back, with a new renew time; the API server
   * applies no patch for it. A renewal still in flight (a slow API server) makes this tick skip, as
   * the kubelet's next attempt waits for its last. A conflict (someone else wrote the Lease) or a
   * Lease that is gone is handled on the API pool: merge-patched, or created again.
   */
  private void renewLeaseAsync() {
    String now;
    Lease last;
    synchronized (leaseLock) {
      if (!running || renewing || heldLease == null) {
        return;
      }
      renewing = true;
      now = nextRenewTime();
      last = heldLease;
    }
    Lease renewed =
        new LeaseBuilder(last)
            .editSpec()
            .withRenewTime(java.time.ZonedDateTime.parse(now))
            .withHolderIdentity(nodeName())
            .endSpec()
            .build();
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(leaseUrl())
            .put("application/json", client.getKubernetesSerialization().asJson(renewed))
            .build();
    http.sendAsync(request, String.class)
        .whenComplete(
            (response, error) -> {
              Lease back = null;
              if (error == null && response.isSuccessful()) {
                try {
                  back =
                      client.getKubernetesSerialization().unmarshal(response.body(), Lease.class);
                } catch (RuntimeException e) {
                  error = e;
                }
              }
              synchronized (leaseLock) {
                renewing = false;
                if (back != null) {
                  held(back, now);
                }
              }
              if (error != null) {
                LOG.warn("node {}: lease renewal failed: {}", nodeName(), error.toString());
              } else if (response.code() == 404 || response.code() == 409) {
                KubeletThreads.api().execute(this::renewLeaseQuietly);
              } else if (!response.isSuccessful()) {
                LOG.warn(
                    "node {}: lease renewal failed: HTTP {} {}",
                    nodeName(),
                    response.code(),
                    response.body());
              }
            });
  }

  /** Records the Lease the API server returned for a renewal at {@code time}. */
  private void held(Lease lease, String time) {
    synchronized (leaseLock) {
      heldLease = lease;
      if (time.compareTo(lastRenew) > 0) {
        lastRenew = time;
      }
    }
  }

  private String leaseUrl() {
    String base = client.getMasterUrl().toString();
    return (base.endsWith("/") ? base : base + "/")
        + "apis/coordination.k8s.io/v1/namespaces/"
        + KubeletConstants.LEASE_NAMESPACE
        + "/leases/"
        + nodeName();
  }

  /** Renews (or creates again) the Lease, blocking; only after a renewal found it gone. */
  private void renewLeaseQuietly() {
    synchronized (leaseCreateLock) {
      if (!running) {
        return; // killed while this run was queued
      }
      try {
        renewLease();
      } catch (RuntimeException e) {
        LOG.warn("node {}: lease renewal failed: {}", nodeName(), e.toString());
      }
    }
  }

  /** Now as a MicroTime, strictly after the last renewal the API server accepted. */
  private String nextRenewTime() {
    String now = MICRO_TIME.format(Instant.now());
    if (now.compareTo(lastRenew) <= 0) {
      now = MICRO_TIME.format(Instant.parse(lastRenew).plusNanos(1000));
    }
    return now;
  }

  private void renewLease() {
    String now;
    synchronized (leaseLock) {
      now = nextRenewTime();
    }
    var leases = client.leases().inNamespace(KubeletConstants.LEASE_NAMESPACE);
    // At start, or when a renewal found the Lease gone or changed: once it exists a merge patch
    // (no read first); a 404 means someone deleted it, so it is created again.
    if (renewedBefore()) {
      try {
        patchLease(now);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }
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
              .withLeaseDurationSeconds(options.leaseDurationSeconds())
              .withRenewTime(java.time.ZonedDateTime.parse(now))
              .endSpec()
              .build();
      try {
        held(leases.resource(lease).create(), now);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    patchLease(now);
  }

  private void patchLease(String now) {
    Lease back =
        client
            .leases()
            .inNamespace(KubeletConstants.LEASE_NAMESPACE)
            .resource(PatchTarget.of(Lease::new, KubeletConstants.LEASE_NAMESPACE, nodeName()))
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"renewTime\":\""
                    + now
                    + "\",\"holderIdentity\":\""
                    + nodeName()
                    + "\"}}");
    held(back, now);
  }

  private boolean renewedBefore() {
    synchronized (leaseLock) {
      return !lastRenew.isEmpty();
    }
  }

  /**
   * Admits a pod like the kubelet: extended resources must fit the node's allocatable minus what
   * admitted pods hold, then every handler must accept it. Serialised, so two pods never both get
   * the last GPU.
   */
  PodAdmitHandler.Refusal admit(Pod pod) {
    // Its own lock, not the kubelet's: a read that hangs on the API server must not keep kill()
    // (Ctrl-C) waiting; kill() interrupts the pod's pass instead.
    synchronized (admitLock) {
      return admitLocked(pod);
    }
  }

  private PodAdmitHandler.Refusal admitLocked(Pod pod) {
    // The shared cache first (no request per pod); a refusal is confirmed with a fresh read, as
    // the cache may not have heard of the capacity a device plugin just registered.
    PodAdmitHandler.Refusal refusal =
        nodeCache == null ? null : fit(pod, nodeCache.get(nodeName()));
    if (nodeCache == null || refusal != null) {
      refusal = fit(pod, client.nodes().withName(nodeName()).get());
    }
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

  private PodAdmitHandler.Refusal fit(Pod pod, Node node) {
    Map<String, io.fabric8.kubernetes.api.model.Quantity> allocatable =
        node == null || node.getStatus() == null ? Map.of() : node.getStatus().getAllocatable();
    return ResourceFit.check(pod, allocatable, admitted.values());
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
    synchronized (admitLock) {
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
    private NodeCache nodeCache;
    private Duration statusCoalescing = Duration.ZERO;
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

    /** The node's position in its cluster (0, 1, ...). */
    public int index() {
      return index;
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

    /**
     * Where the status heartbeat and admission read the node's Node (shared by the kubelets of a
     * cluster); without one they GET it with the node's credential.
     */
    public Builder nodeCache(NodeCache cache) {
      this.nodeCache = cache;
      return this;
    }

    /**
     * Posts a pod's status at most once per {@code interval} while it runs (its first status and
     * its end at once; changes in between as one patch with the latest). Pod status patches are
     * most of what an API server does for a rollout to many nodes; a kubelet posts each change, so
     * the default, zero, does too.
     */
    public Builder statusCoalescing(Duration interval) {
      this.statusCoalescing = interval;
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

package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.gpuoperator.sim.controlplane.StreamingInformer;
import java.time.Duration;
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
 *
 * <p>This class owns the kubelet's lifecycle and its pod workers; the Lease is {@link NodeLease}'s,
 * the Node's conditions {@link NodeStatusHeartbeat}'s, and what pods are given {@link
 * PodAdmission}'s.
 */
public final class SimulatedKubelet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatedKubelet.class);

  /** How long a start waits for the first list of the node's pods, retries included. */
  private static final Duration POD_LIST_WAIT = Duration.ofMinutes(2);

  private final KubernetesClient client;
  private final NodeDescription description;
  private final NodeDirs dirs;
  private final int index;
  private final ContainerRunners runners;
  private final KubernetesClient agentClient;
  private final KubeletOptions options;
  private final List<KubeletLifecycle> lifecycles;
  private final ScheduledExecutorService timer;
  private final ServiceAccountTokens serviceAccountTokens;
  private final NodeCache nodeCache;
  private final Duration statusCoalescing;
  private final NodeStatusHeartbeat status;
  private final NodeLease lease;
  private final PodAdmission admission;
  private final Map<String, PodWorker> workers = new ConcurrentHashMap<>();
  private final AtomicInteger podCounter = new AtomicInteger();
  private final List<Future<?>> heartbeats = new ArrayList<>();
  private StreamingInformer<Pod> informer;
  private volatile boolean running;
  private volatile boolean closed;
  private boolean startedBefore;

  private SimulatedKubelet(Builder b) {
    this.client = b.client;
    this.description = b.description;
    this.dirs = b.dirs;
    this.index = b.index;
    this.runners = b.runners;
    this.agentClient = b.agentClient;
    this.options = b.options;
    this.lifecycles = List.copyOf(b.lifecycles);
    // Shared by every kubelet of the JVM: a node's containers cancel their ticks when they stop.
    this.timer = KubeletThreads.timer();
    this.serviceAccountTokens = new ServiceAccountTokens(client);
    this.nodeCache = b.nodeCache;
    this.statusCoalescing = b.statusCoalescing;
    this.status =
        new NodeStatusHeartbeat(client, description, index, nodeCache, options, this::isRunning);
    this.lease = new NodeLease(client, description.name(), options, this::isRunning);
    this.admission =
        new PodAdmission(client, description.name(), nodeCache, b.admitHandlers, b.preparers);
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

  /** Admission and resource preparation of the node's pods, and their release. */
  PodAdmission admission() {
    return admission;
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
    status.register();
    lease.renewNow();
    long renew = options.leaseRenewInterval().toMillis();
    ScheduledExecutorService api = KubeletThreads.api();
    // Renewals are sent without holding a thread (one in flight per node): at 1,000 nodes that is
    // 100 a second, which a few threads waiting on a busy API server could not keep up with.
    heartbeats.add(
        KubeletThreads.timer()
            .scheduleWithFixedDelay(lease::renewAsync, renew, renew, TimeUnit.MILLISECONDS));
    // As the kubelet's nodeStatusUpdateFrequency: compared every lease interval, posted when it
    // differs or is due.
    heartbeats.add(
        api.scheduleWithFixedDelay(status::syncQuietly, renew, renew, TimeUnit.MILLISECONDS));
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

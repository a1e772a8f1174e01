package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuoperator.operator.cluster.NodeSlimming;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The operator's one cache of Nodes (slimmed, {@link NodeSlimming}), shared by every controller
 * that reads nodes besides its primary: the ClusterPolicy, GPUCluster, NVIDIADriver, remediation
 * and both driver-upgrade controllers. JOSDK gives each controller's InformerEventSource its own
 * informer, so each used to keep its own copy of every Node and its own watch (six, plus the node
 * label controller's primary cache: 7,000 cached Nodes at 1,000 nodes). Each controller instead
 * registers an {@link Events} source on this informer, with its own filter of updates; the informer
 * runs while any of them does.
 */
public final class SharedNodes {
  /** How long a start waits for the first list, as JOSDK's default cache sync timeout. */
  static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);

  private final KubernetesClient client;
  private SharedIndexInformer<Node> informer;
  private int users;

  public SharedNodes(KubernetesClient client) {
    this.client = client;
  }

  /** The cached nodes; empty before the first controller started. */
  Stream<Node> list() {
    SharedIndexInformer<Node> i = current();
    return i == null ? Stream.empty() : i.getStore().list().stream();
  }

  private synchronized SharedIndexInformer<Node> current() {
    return informer;
  }

  /**
   * Node changes as an event source of the controller {@code context} belongs to: adds and deletes
   * always, updates that {@code updates} accepts, each reconciling every primary (what the
   * controllers decide from nodes is cluster-wide).
   */
  <P extends io.fabric8.kubernetes.api.model.HasMetadata> Events<P> events(
      String name, EventSourceContext<P> context, OnUpdateFilter<Node> updates) {
    return new Events<>(name, context, updates);
  }

  private synchronized SharedIndexInformer<Node> acquire() {
    if (informer == null) {
      SharedIndexInformer<Node> created =
          client.nodes().runnableInformer(0).itemStore(NodeSlimming.store());
      try {
        created.start().toCompletableFuture().get(SYNC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        created.stop();
        throw new OperatorException("cannot list and watch Nodes: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        created.stop();
        Thread.currentThread().interrupt();
        throw new OperatorException("interrupted while listing Nodes", e);
      }
      informer = created;
    }
    users++;
    return informer;
  }

  private synchronized void release() {
    if (--users == 0 && informer != null) {
      informer.stop();
      informer = null;
    }
  }

  /** One controller's view of the shared Node informer. */
  final class Events<P extends io.fabric8.kubernetes.api.model.HasMetadata>
      extends AbstractEventSource<Node, P> implements ResourceEventHandler<Node> {
    private final EventSourceContext<P> context;
    private final OnUpdateFilter<Node> updates;
    private volatile SharedIndexInformer<Node> running;

    private Events(String name, EventSourceContext<P> context, OnUpdateFilter<Node> updates) {
      super(Node.class, name);
      this.context = context;
      this.updates = updates;
    }

    @Override
    public synchronized void start() {
      super.start();
      if (running == null) {
        running = acquire();
        // A handler added to a running informer is first told of every cached node (as adds).
        running.addEventHandler(this);
      }
    }

    @Override
    public synchronized void stop() {
      super.stop();
      if (running != null) {
        running.removeEventHandler(this);
        running = null;
        release();
      }
    }

    @Override
    public Status getStatus() {
      SharedIndexInformer<Node> i = running;
      return i != null && i.isRunning() && i.hasSynced() && i.isWatching()
          ? Status.HEALTHY
          : Status.UNHEALTHY;
    }

    /** The cached nodes (every controller reads all of them). */
    Stream<Node> list() {
      return SharedNodes.this.list();
    }

    /**
     * None: no node belongs to one primary; the controllers read the cache through {@link #list}.
     */
    @Override
    public Set<Node> getSecondaryResources(P primary) {
      return Set.of();
    }

    @Override
    public void onAdd(Node node) {
      reconcileAll();
    }

    @Override
    public void onUpdate(Node before, Node after) {
      if (updates.accept(after, before)) {
        reconcileAll();
      }
    }

    @Override
    public void onDelete(Node node, boolean finalStateUnknown) {
      reconcileAll();
    }

    private void reconcileAll() {
      if (!isRunning()) {
        return;
      }
      context
          .getPrimaryCache()
          .list()
          .forEach(p -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(p))));
    }
  }
}

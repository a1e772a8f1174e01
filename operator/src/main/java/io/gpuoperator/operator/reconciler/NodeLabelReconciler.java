package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each node's operator-owned labels and GPU taint as the active ClusterPolicy wants them. One
 * work item per node (the node is the primary resource, so the framework runs nodes concurrently
 * and never the same node twice at once); all of a node's changes go in one merge patch, sent only
 * when something differs. A policy change re-queues every node.
 */
public class NodeLabelReconciler implements Reconciler<Node> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLabelReconciler.class);
  static final String POLICIES = "policies";

  private final KubernetesClient client;
  private final NodeLabelPlanner planner;

  /**
   * resourceVersion our last patch returned, per node: a cached node older than that is stale (the
   * watch event of our own write is on its way), so it is not patched a second time.
   */
  private final Map<String, Long> written = new ConcurrentHashMap<>();

  private volatile InformerEventSource<ClusterPolicy, Node> policies;

  /** Only a valid spec drives labels and taints (an invalid edit keeps the last valid one). */
  private final LastValidPolicy valid;

  public NodeLabelReconciler(
      KubernetesClient client, NodeLabelPlanner planner, LastValidPolicy valid) {
    this.client = client;
    this.planner = planner;
    this.valid = valid;
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
    var nodes = context.getPrimaryCache();
    policies =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ClusterPolicy.class, Node.class)
                .withName(POLICIES)
                .withSecondaryToPrimaryMapper(
                    p -> nodes.list().map(ResourceID::fromResource).collect(Collectors.toSet()))
                .withOnUpdateFilter(
                    (a, b) ->
                        !Objects.equals(
                            a.getMetadata().getGeneration(), b.getMetadata().getGeneration()))
                .build(),
            context);
    return List.of(policies);
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
    String name = node.getMetadata().getName();
    Optional<ClusterPolicy> active = ActivePolicy.of(policies.list().toList()).flatMap(valid::of);
    if (active.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    Long ours = written.get(name);
    Long seen = version(node);
    if (ours != null && seen != null) {
      if (seen < ours) {
        return UpdateControl.noUpdate();
      }
      // The cache has caught up with our write: the guard is no longer needed for this node.
      written.remove(name, ours);
    }
    Optional<String> patch = planner.mergePatch(node, active.get());
    if (patch.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    LOG.info("patching labels/taint: {}", patch.get());
    Node result =
        client.nodes().withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch.get());
    Long now = version(result);
    if (now != null) {
      written.put(name, now);
    }
    return UpdateControl.noUpdate();
  }

  private static Long version(Node n) {
    try {
      return Long.parseLong(n.getMetadata().getResourceVersion());
    } catch (RuntimeException e) {
      // resourceVersions are opaque by contract; without a number the guard is just off.
      return null;
    }
  }
}

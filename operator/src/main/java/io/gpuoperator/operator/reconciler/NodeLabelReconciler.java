package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.operator.labels.NodeLabelChange;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each node's operator-owned labels and GPU taint (only where {@code spec.nodeTaint} asks for
 * one) as the active ClusterPolicy wants them. One work item per node (the node is the primary
 * resource, so the framework runs nodes concurrently and never the same node twice at once); all of
 * a node's changes go in one merge patch, sent only when something differs. A policy change
 * re-queues every node. When the last ClusterPolicy is deleted, the GPU taint the operator recorded
 * as added (not a label of the original's) is removed from every node.
 */
public class NodeLabelReconciler implements Reconciler<Node> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLabelReconciler.class);
  static final String POLICIES = "policies";
  static final String GPU_CLUSTERS = "gpuclusters";

  private final KubernetesClient client;
  private final NodeLabelPlanner planner;

  /**
   * resourceVersion our last patch returned, per node: a cached node older than that is stale (the
   * watch event of our own write is on its way), so it is not patched a second time.
   */
  private final Map<String, Long> written = new ConcurrentHashMap<>();

  private volatile InformerEventSource<ClusterPolicy, Node> policies;
  private volatile InformerEventSource<GPUCluster, Node> gpuClusters;

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
    policies =
        Watch.of(ClusterPolicy.class, POLICIES, context)
            .onUpdateWhen(Watch::specChanged)
            .allPrimaries();
    gpuClusters =
        Watch.of(GPUCluster.class, GPU_CLUSTERS, context).onUpdateWhen(Watch::never).allPrimaries();
    return List.of(policies, gpuClusters);
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
    String name = node.getMetadata().getName();
    List<ClusterPolicy> all = policies.list().toList();
    Optional<ClusterPolicy> active = ActivePolicy.of(all).flatMap(valid::of);
    if (all.isEmpty()) {
      // No policy at all (deleted): take our GPU taint back; the original's labels stay.
      NodeLabelChange cleanup = NodeLabelRules.cleanup(node);
      return patch(
          node,
          cleanup.isEmpty() ? null : cleanup.toMergePatchJson(),
          "no ClusterPolicy, removing the GPU taint");
    }
    if (active.isEmpty() || gpuClusters.list().findAny().isPresent()) {
      // With a GPUCluster too the policy is in conflict (its status says so): labels stay as they
      // are; the GPUCluster labels its nodes itself.
      return UpdateControl.noUpdate();
    }
    return patch(
        node, planner.mergePatch(node, active.get()).orElse(null), "patching labels/taint");
  }

  /** Sends one merge patch unless the cached node is older than our last write, or none is due. */
  private UpdateControl<Node> patch(Node node, String mergePatch, String what) {
    String name = node.getMetadata().getName();
    Long ours = written.get(name);
    Long seen = version(node);
    if (ours != null && seen != null) {
      if (seen < ours) {
        return UpdateControl.noUpdate();
      }
      // The cache has caught up with our write: the guard is no longer needed for this node.
      written.remove(name, ours);
    }
    if (mergePatch == null) {
      return UpdateControl.noUpdate();
    }
    LOG.info("{}: {}", what, mergePatch);
    Node result =
        client
            .nodes()
            .resource(PatchTarget.of(Node::new, null, name))
            .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
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

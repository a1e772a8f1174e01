package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.StreamingInformer;
import io.gpuoperator.sim.kubelet.NodeCache;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.util.List;

/**
 * The simulation's status from watches (the Nodes, shared with the kubelets, the pods of the
 * operator's namespace, the ClusterPolicy) instead of listing them every half second: at 1,000
 * nodes one such read is tens of megabytes of JSON for the API server to encode and this JVM to
 * decode, where a watch costs only the changes. Eventually consistent (a watch event behind a
 * write); {@link Simulation#status()} reads fresh.
 */
final class ClusterView implements AutoCloseable {
  private final List<NodeDescription> nodes;
  private final NodeCache nodeCache;
  private final StreamingInformer<Pod> podInformer;
  private final SharedIndexInformer<ClusterPolicy> policyInformer;

  private ClusterView(
      List<NodeDescription> nodes,
      NodeCache nodeCache,
      StreamingInformer<Pod> podInformer,
      SharedIndexInformer<ClusterPolicy> policyInformer) {
    this.nodes = nodes;
    this.nodeCache = nodeCache;
    this.podInformer = podInformer;
    this.policyInformer = policyInformer;
  }

  /**
   * Starts the pod and policy informers and waits for their first lists; the Nodes come from the
   * kubelets' shared cache.
   */
  static ClusterView start(
      KubernetesClient client,
      NodeCache nodeCache,
      List<NodeDescription> nodes,
      String namespace,
      String policy) {
    // Paged lists (StreamingInformer): thousands of operand pods in one list can outlast the
    // request timeout of a busy API server.
    StreamingInformer<Pod> p = new StreamingInformer<>(client, Pod.class, namespace, null);
    SharedIndexInformer<ClusterPolicy> c =
        client.resources(ClusterPolicy.class).withName(policy).runnableInformer(0);
    ClusterView view = new ClusterView(nodes, nodeCache, p, c);
    try {
      p.start().join();
      c.start().toCompletableFuture().join();
    } catch (RuntimeException e) {
      view.close();
      throw e;
    }
    return view;
  }

  SimulationStatus status() {
    List<ClusterPolicy> policies = policyInformer.getStore().list();
    return SimulationStatus.of(
        nodes, nodeCache.list(), podInformer.list(), policies.isEmpty() ? null : policies.get(0));
  }

  @Override
  public void close() {
    podInformer.close();
    policyInformer.close();
  }
}

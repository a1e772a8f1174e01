package io.gpuoperator.cli.simulate;

import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A control plane and simulated nodes on it, for tests that drive them without a {@link
 * Simulation}'s operator: the control plane starts with a credential for each node, then the nodes'
 * kubelets start; closing stops the nodes, then the control plane.
 */
public record ClusterOnNodes(ControlPlane cp, SimulatedCluster cluster) implements AutoCloseable {
  /** A small mixed cluster: h100-0 with 8 H100s, l4-0 with 2 L4s, and cpu-0 without a GPU. */
  public static final List<NodeDescription> SMALL =
      List.of(
          NodeDescription.gpuNode("h100-0", "H100-SXM5-80GB", 8),
          NodeDescription.gpuNode("l4-0", "L4", 2),
          NodeDescription.cpuNode("cpu-0"));

  /**
   * What most of these tests run: the API server with the controller-manager and the scheduler, and
   * kubelets that restart a failed container within 1 to 5 s.
   */
  public static ClusterOnNodes withScheduler(List<NodeDescription> nodes)
      throws IOException, InterruptedException {
    return start(
        ControlPlane.builder().controllerManager(true).scheduler(true),
        nodes,
        KubeletOptions.defaults().withBackOff(Duration.ofSeconds(1), Duration.ofSeconds(5)));
  }

  /** The API server alone (no controller places anything) and default kubelets. */
  public static ClusterOnNodes apiServerOnly(NodeDescription... nodes)
      throws IOException, InterruptedException {
    return start(ControlPlane.builder(), List.of(nodes), KubeletOptions.defaults());
  }

  /** Starts {@code controlPlane} (its components as the caller set them) and then the nodes. */
  public static ClusterOnNodes start(
      ControlPlane.Builder controlPlane, List<NodeDescription> nodes, KubeletOptions options)
      throws IOException, InterruptedException {
    ControlPlane cp =
        controlPlane.nodes(nodes.stream().map(NodeDescription::name).toList()).start();
    try {
      return new ClusterOnNodes(cp, SimulatedCluster.start(cp, nodes, options));
    } catch (IOException | RuntimeException | Error e) {
      cp.close();
      throw e;
    }
  }

  @Override
  public void close() {
    cluster.close();
    cp.close();
  }
}

package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.ContainerRunners;
import io.gpuoperator.sim.kubelet.DevicePluginSupport;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import io.gpuoperator.sim.kubelet.SimulatedNodes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node side of a simulated cluster: a simulated kubelet per node, each with the kubelet's
 * device-plugin and pod-resources servers on its own sockets, running this project's agents ({@code
 * validator}, {@code device-plugin}, {@code feature-discovery}, {@code mig-manager}, {@code
 * exporter}) in-process against the node's simulated GPUs, and everything else by declared
 * behaviour. The control plane must know the nodes' identities ({@code
 * ControlPlane.builder().nodes(...)}).
 */
public final class SimulatedCluster implements AutoCloseable {
  private final SimulatedGpuBackends backends;
  private final KubernetesClient agentClient;
  private final Map<String, DevicePluginSupport> devices = new ConcurrentHashMap<>();
  private final ExporterInProcessAgent exporter;
  private SimulatedNodes nodes;

  private SimulatedCluster(SimulatedGpuBackends backends, KubernetesClient agentClient) {
    this.backends = backends;
    this.agentClient = agentClient;
    this.exporter = new ExporterInProcessAgent(backends);
  }

  /** Starts a kubelet for each node; agents talk to the API server as admin. */
  public static SimulatedCluster start(
      ControlPlane cp, List<NodeDescription> descriptions, KubeletOptions options)
      throws IOException {
    SimulatedCluster c =
        new SimulatedCluster(new SimulatedGpuBackends(descriptions), cp.newClient());
    try {
      ContainerRunners runners =
          ContainerRunners.builder()
              .agent("validator", new ValidatorAgent(c.backends::opener), false)
              .agent("device-plugin", new DevicePluginInProcessAgent(c.backends), false)
              .agent("feature-discovery", new FeatureDiscoveryInProcessAgent(c.backends), false)
              .agent("exporter", c.exporter, false)
              .agent("mig-manager", new MigManagerInProcessAgent(c.backends), false)
              .build();
      c.nodes =
          SimulatedNodes.start(
              descriptions,
              cp::nodeClient,
              (d, b) -> {
                DevicePluginSupport dp = DevicePluginSupport.forNode(d, b.dirs(), b.client());
                c.devices.put(d.name(), dp);
                return dp.attach(b.runners(runners).agentClient(c.agentClient).options(options));
              });
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  public SimulatedKubelet kubelet(String node) {
    return nodes.kubelet(node);
  }

  public List<SimulatedKubelet> kubelets() {
    return nodes.kubelets();
  }

  /** The kubelet-side device manager of a node. */
  public DevicePluginSupport devices(String node) {
    DevicePluginSupport d = devices.get(node);
    if (d == null) {
      throw new IllegalArgumentException("no simulated node " + node);
    }
    return d;
  }

  /** The port of a node's in-process metrics exporter on 127.0.0.1, or null while none runs. */
  public Integer exporterPort(String node) {
    return exporter.port(node);
  }

  public SimulatedGpuBackends backends() {
    return backends;
  }

  /** The temp directory with every node's directories; removed by {@link #close()}. */
  public Path root() {
    return nodes.root();
  }

  @Override
  public void close() {
    if (nodes != null) {
      nodes.close();
    }
    backends.close();
    agentClient.close();
  }
}

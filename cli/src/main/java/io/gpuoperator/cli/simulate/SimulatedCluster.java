package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.controlplane.ControlPlaneSizing;
import io.gpuoperator.sim.kubelet.ContainerRunners;
import io.gpuoperator.sim.kubelet.DevicePluginSupport;
import io.gpuoperator.sim.kubelet.DraSupport;
import io.gpuoperator.sim.kubelet.Entrypoint;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeCache;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import io.gpuoperator.sim.kubelet.SimulatedNodes;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node side of a simulated cluster: a simulated kubelet per node, each with the kubelet's
 * device-plugin and pod-resources servers on its own sockets, running this project's agents ({@code
 * validator}, {@code device-plugin}, {@code feature-discovery}, {@code toolkit}, {@code
 * mig-manager}, {@code dra-plugin}, {@code exporter}, {@code pci-discovery}, and several of them in
 * one container as {@code node-agents}) in-process against the node's simulated GPUs, the
 * operator's own pods ({@code operator}, as the pod's ServiceAccount), for our image and in place
 * of NVIDIA's programs of the same job, NVIDIA's config-manager, and everything else by declared
 * behaviour. The control plane must know the nodes' identities ({@code
 * ControlPlane.builder().nodes(...)}).
 */
public final class SimulatedCluster implements AutoCloseable {
  private final SimulatedGpuBackends backends;

  /**
   * The in-process agents' admin clients, one per {@value #NODES_PER_AGENT_CLIENT} nodes. A client
   * multiplexes its requests and its watches (HTTP streams, see {@code SharedClientResources}) over
   * one HTTP/2 connection, the API server allows 100 streams on one, and the JDK client fails a
   * request beyond that ("too many concurrent streams") instead of waiting: at 1,000 nodes on one
   * client the agents' informers failed and stopped. A node's agents hold up to four watches (the
   * device plugin's, the MIG manager's and the validator's of their Node, a validator's of its
   * workload pod) besides their requests.
   */
  private final List<KubernetesClient> agentClients;

  private final KubernetesClient readerClient;

  static final int NODES_PER_AGENT_CLIENT = 10;
  private final Map<String, DevicePluginSupport> devices = new ConcurrentHashMap<>();
  private final Map<String, DraSupport> dra = new ConcurrentHashMap<>();
  private final DraPluginInProcessAgent draPlugin;
  private final ExporterInProcessAgent exporter;
  private final OperatorInProcessAgent operator = new OperatorInProcessAgent();
  private SimulatedNodes nodes;
  private NodeCache nodeCache;

  private SimulatedCluster(
      SimulatedGpuBackends backends,
      List<KubernetesClient> agentClients,
      KubernetesClient readerClient) {
    this.backends = backends;
    this.agentClients = agentClients;
    this.readerClient = readerClient;
    this.draPlugin = new DraPluginInProcessAgent(backends);
    this.exporter = new ExporterInProcessAgent(backends);
  }

  /** Starts a kubelet for each node; agents talk to the API server as admin. */
  public static SimulatedCluster start(
      ControlPlane cp, List<NodeDescription> descriptions, KubeletOptions options)
      throws IOException {
    List<KubernetesClient> agentClients = new ArrayList<>();
    int clients = (descriptions.size() + NODES_PER_AGENT_CLIENT - 1) / NODES_PER_AGENT_CLIENT;
    for (int i = 0; i < Math.max(1, clients); i++) {
      agentClients.add(cp.newClient());
    }
    SimulatedCluster c =
        new SimulatedCluster(
            new SimulatedGpuBackends(descriptions), List.copyOf(agentClients), cp.newClient());
    try {
      ValidatorAgent validator = new ValidatorAgent(c.backends::opener);
      DevicePluginInProcessAgent devicePlugin = new DevicePluginInProcessAgent(c.backends);
      FeatureDiscoveryInProcessAgent featureDiscovery =
          new FeatureDiscoveryInProcessAgent(c.backends);
      ToolkitInProcessAgent toolkit = new ToolkitInProcessAgent(c.backends);
      // Our agents for our image's subcommands; the same code stands in for NVIDIA's programs
      // under the original's contract (they share the env and marker-file protocol).
      Map<String, InProcessAgent> hostable =
          Map.of(
              "device-plugin",
              devicePlugin,
              "feature-discovery",
              featureDiscovery,
              "dra-plugin",
              c.draPlugin,
              "exporter",
              c.exporter,
              "mig-manager",
              new MigManagerInProcessAgent(c.backends),
              "pci-discovery",
              new PciDiscoveryInProcessAgent());
      ContainerRunners runners =
          ContainerRunners.builder()
              .agent("validator", validator, false)
              .agent("device-plugin", devicePlugin, false)
              .agent("feature-discovery", featureDiscovery, false)
              .agent("dra-plugin", c.draPlugin, false)
              .agent("toolkit", toolkit, false)
              .agent("exporter", c.exporter, false)
              .agent("mig-manager", hostable.get("mig-manager"), false)
              .agent("pci-discovery", hostable.get("pci-discovery"), false)
              // Several of the above in one container, under the real supervisor.
              .agent("node-agents", new NodeAgentsInProcessAgent(hostable), false)
              // The chart's operator Deployment, when the cluster is installed with helm.
              .agent("operator", c.operator, false)
              .program("nvidia-validator", validator, false)
              .program("nvidia-device-plugin", devicePlugin, false)
              .program("gpu-feature-discovery", featureDiscovery, false)
              .program("nvidia-toolkit", toolkit, false)
              .program("config-manager", new ConfigManagerAgent(), false)
              // NVIDIA's sandbox programs (VM workloads).
              .program(VfioManagerInProcessAgent.PROGRAM, new VfioManagerInProcessAgent(), false)
              .program(
                  Entrypoint.VGPU_MANAGER_PROGRAM, new VgpuManagerInProcessAgent(c.backends), false)
              .program(
                  VgpuDeviceManagerInProcessAgent.PROGRAM,
                  new VgpuDeviceManagerInProcessAgent(),
                  false)
              .program(
                  KubevirtDevicePluginInProcessAgent.PROGRAM,
                  new KubevirtDevicePluginInProcessAgent(),
                  false)
              .build();
      c.nodeCache = NodeCache.start(c.readerClient);
      // Above the size Kubernetes' defaults suit, pod status changes are posted at most once a
      // second per pod: the API server's cost of a rollout is mostly those patches.
      Duration statusCoalescing =
          descriptions.size() > ControlPlaneSizing.DEFAULTS_UP_TO
              ? Duration.ofSeconds(1)
              : Duration.ZERO;
      c.nodes =
          SimulatedNodes.start(
              descriptions,
              cp::nodeClient,
              (d, b) -> {
                // The node's hardware in its /sys, there before any pod runs (a CPU node's
                // backend, which nothing else may need, is not built for it).
                try {
                  new SimulatedSysfs(b.dirs().hostPath("/sys"))
                      .writePciDevices(
                          d.hasGpus() ? c.backends.backend(d.name()).devices() : List.of());
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(
                      "node " + d.name() + ": /sys: " + e.getMessage(), e);
                }
                DevicePluginSupport dp = DevicePluginSupport.forNode(d, b.dirs(), b.client());
                DraSupport draSupport = DraSupport.forNode(d, b.dirs(), b.client());
                c.devices.put(d.name(), dp);
                c.dra.put(d.name(), draSupport);
                draSupport.attach(b, dp.devices());
                return dp.attach(
                    b.runners(runners)
                        .agentClient(c.agentClients.get(b.index() / NODES_PER_AGENT_CLIENT))
                        .nodeCache(c.nodeCache)
                        .statusCoalescing(statusCoalescing)
                        .options(options));
              });
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** Every Node, from the one watch the kubelets' heartbeats read. */
  public NodeCache nodeCache() {
    return nodeCache;
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

  /** The kubelet-side DRA manager of a node. */
  public DraSupport dra(String node) {
    DraSupport d = dra.get(node);
    if (d == null) {
      throw new IllegalArgumentException("no simulated node " + node);
    }
    return d;
  }

  /** The in-process DRA plugin agent (what it set on the nodes' simulated GPUs). */
  public DraPluginInProcessAgent draPlugin() {
    return draPlugin;
  }

  /** The operator containers running in pods of these nodes (the chart's Deployment). */
  public OperatorInProcessAgent operator() {
    return operator;
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
    if (nodeCache != null) {
      nodeCache.close();
    }
    backends.close();
    agentClients.forEach(KubernetesClient::close);
    readerClient.close();
  }
}

package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.RunDirs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated kubelets of a cluster: one per node, each with its own directories under one temp
 * root, which {@link #close()} removes after stopping every kubelet and container.
 */
public final class SimulatedNodes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatedNodes.class);

  private final Path root;
  private final Map<String, SimulatedKubelet> kubelets = new LinkedHashMap<>();
  private final List<KubernetesClient> clients = new ArrayList<>();

  /** The prefix of the nodes' temp directory (stale ones are removed at start). */
  public static final String DIR_PREFIX = "gpu-operator-nodes-";

  private SimulatedNodes(Path root) {
    this.root = root;
  }

  /**
   * Starts a kubelet for each node.
   *
   * @param nodeClients the client of each node, by name, authenticated as that node; closed with
   *     this object
   * @param customize adds runners, options, handlers to each node's builder
   */
  public static SimulatedNodes start(
      List<NodeDescription> nodes,
      Function<String, KubernetesClient> nodeClients,
      BiFunction<NodeDescription, SimulatedKubelet.Builder, SimulatedKubelet.Builder> customize)
      throws IOException {
    SimulatedNodes out = new SimulatedNodes(RunDirs.create(DIR_PREFIX));
    try {
      int index = 0;
      for (NodeDescription d : nodes) {
        KubernetesClient client = nodeClients.apply(d.name());
        out.clients.add(client);
        SimulatedKubelet.Builder b =
            SimulatedKubelet.builder(client, d, NodeDirs.create(out.root, d.name())).index(index++);
        SimulatedKubelet k = customize.apply(d, b).build();
        out.kubelets.put(d.name(), k);
        k.start();
      }
      return out;
    } catch (IOException | RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /** The temp directory holding every node's directories. */
  public Path root() {
    return root;
  }

  public List<SimulatedKubelet> kubelets() {
    return List.copyOf(kubelets.values());
  }

  /** The kubelet of a node; IllegalArgumentException when there is none. */
  public SimulatedKubelet kubelet(String node) {
    SimulatedKubelet k = kubelets.get(node);
    if (k == null) {
      throw new IllegalArgumentException(
          "no simulated node " + node + "; nodes: " + kubelets.keySet());
    }
    return k;
  }

  @Override
  public void close() {
    for (SimulatedKubelet k : kubelets.values()) {
      try {
        k.close();
      } catch (RuntimeException e) {
        LOG.warn("stopping the kubelet of node {}: {}", k.nodeName(), e.toString());
      }
    }
    clients.forEach(KubernetesClient::close);
    RunDirs.deleteTree(root);
  }
}

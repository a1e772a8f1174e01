package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
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
    SimulatedNodes out = new SimulatedNodes(Files.createTempDirectory("gpu-operator-nodes-"));
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
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + root, e);
    }
  }
}

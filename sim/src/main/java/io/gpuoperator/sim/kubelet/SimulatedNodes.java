package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlaneSizing;
import io.gpuoperator.sim.controlplane.DaemonThreads;
import io.gpuoperator.sim.controlplane.RunDirs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /** Kubelets started (and stopped) at once in a large cluster. */
  private static final int STARTERS = 8;

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
    KubeletThreads.sizeFor(nodes.size());
    // Built in order, started a few at a time in a large cluster: a start is mostly waiting on the
    // API server (register, lease, the first pod list), so 1,000 nodes one by one take minutes.
    ExecutorService starter = starters(nodes.size(), "kubelet-start-");
    try {
      int index = 0;
      List<Future<?>> started = new ArrayList<>();
      for (NodeDescription d : nodes) {
        KubernetesClient client = nodeClients.apply(d.name());
        out.clients.add(client);
        SimulatedKubelet.Builder b =
            SimulatedKubelet.builder(client, d, NodeDirs.create(out.root, d.name())).index(index++);
        SimulatedKubelet k = customize.apply(d, b).build();
        out.kubelets.put(d.name(), k);
        started.add(starter.submit(k::start));
      }
      for (Future<?> f : started) {
        f.get();
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      out.close();
      throw new IOException("interrupted while starting the simulated nodes", e);
    } catch (ExecutionException e) {
      out.close();
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(e.getCause());
    } catch (IOException | RuntimeException e) {
      out.close();
      throw e;
    } finally {
      starter.shutdownNow();
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

  /**
   * Stops every kubelet and its containers, a few at a time in a large cluster (a kubelet waits up
   * to 10 s for its pod workers' passes, so 1,000 one by one could take minutes), then closes the
   * clients and removes the nodes' directories.
   */
  @Override
  public void close() {
    ExecutorService stopper = starters(kubelets.size(), "kubelet-stop-");
    List<Future<?>> stopped = new ArrayList<>();
    for (SimulatedKubelet k : kubelets.values()) {
      stopped.add(
          stopper.submit(
              () -> {
                try {
                  k.close();
                } catch (RuntimeException e) {
                  LOG.warn("stopping the kubelet of node {}: {}", k.nodeName(), e.toString());
                }
              }));
    }
    try {
      for (Future<?> f : stopped) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.warn("stopping the kubelets: {}", e.getCause().toString());
    } finally {
      stopper.shutdown();
    }
    clients.forEach(KubernetesClient::close);
    RunDirs.remove(root);
  }

  /**
   * One thread up to {@link ControlPlaneSizing#DEFAULTS_UP_TO} kubelets, so a small cluster's nodes
   * start and stop in order (tests rely on it, and there it costs nothing); {@value #STARTERS}
   * above.
   */
  private static ExecutorService starters(int kubelets, String prefix) {
    int threads = kubelets <= ControlPlaneSizing.DEFAULTS_UP_TO ? 1 : STARTERS;
    return Executors.newFixedThreadPool(threads, DaemonThreads.named(prefix));
  }
}

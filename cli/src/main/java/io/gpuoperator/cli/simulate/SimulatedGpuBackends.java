package io.gpuoperator.cli.simulate;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Values;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.NodeProfile;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.validator.GpuBackendOpener;
import io.gpuoperator.sim.kubelet.ClusterFile;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link SimulatedBackend} per simulated node, built from the node's hardware profile and
 * shared by every agent of that node (so MIG changes made by one are seen by the others).
 */
public final class SimulatedGpuBackends implements AutoCloseable {
  /** Driver and CUDA versions the simulated nodes report. */
  public static final String DRIVER_VERSION = "550.54.15";

  public static final String CUDA_VERSION = "12.4";

  private final Map<String, NodeDescription> nodes = new ConcurrentHashMap<>();
  private final Map<String, SimulatedBackend> backends = new ConcurrentHashMap<>();

  public SimulatedGpuBackends(List<NodeDescription> descriptions) {
    for (NodeDescription d : descriptions) {
      nodes.put(d.name(), d);
    }
  }

  /**
   * The node profile of a simulated node: its GPUs, in MIG mode with the node's MIG devices when it
   * declares some. A MIG profile the GPU model does not have is an IllegalArgumentException naming
   * the node.
   */
  public static NodeProfile profile(NodeDescription d) {
    NodeProfile.MigLayout mig = d.mig().isEmpty() ? null : new NodeProfile.MigLayout(true, d.mig());
    List<NodeProfile.GpuGroup> gpus;
    try {
      gpus =
          d.hasGpus()
              ? List.of(
                  new NodeProfile.GpuGroup(HardwareProfiles.builtIn(d.profile()), d.gpus(), mig))
              : List.of();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("node " + d.name() + ": " + e.getMessage(), e);
    }
    String machine =
        d.hasGpus() ? "Simulated " + d.gpus() + "x " + d.profile() : "Simulated CPU node";
    return new NodeProfile(machine, DRIVER_VERSION, CUDA_VERSION, null, null, null, gpus);
  }

  /**
   * Checks every node of a cluster file the way its backend will be built: a known GPU model, MIG
   * profiles it has, and a MIG layout that fits the GPU (placements, slices), with the rules of
   * node-profile files. Errors name the node's entry and line.
   */
  public static void check(ClusterFile file) {
    for (NodeDescription d : file.nodes()) {
      if (!d.hasGpus()) {
        continue;
      }
      if (!HardwareProfiles.BUILT_IN.contains(d.profile())) {
        throw file.error(
            d.name(),
            "profile",
            "unknown GPU model "
                + Values.quote(d.profile())
                + "; expected one of "
                + String.join(", ", HardwareProfiles.BUILT_IN));
      }
      NodeProfile profile;
      try {
        profile = profile(d);
      } catch (IllegalArgumentException | ConfigException e) {
        throw file.error(d.name(), "mig", withoutNode(d, e.getMessage()));
      }
      try (SimulatedBackend b = new SimulatedBackend(profile, d.name())) {
        // built: the layout fits
      } catch (ConfigException | IllegalArgumentException e) {
        throw file.error(d.name(), "mig", withoutNode(d, e.getMessage()));
      }
    }
  }

  private static String withoutNode(NodeDescription d, String message) {
    String m = message == null ? "invalid MIG layout" : message;
    String prefix = "node " + d.name() + ": ";
    m = m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    return m.replaceFirst("^mig(\\.devices)?: ", "");
  }

  /** The node profile a simulated node's backend is built from. */
  public NodeProfile profileOf(String node) {
    NodeDescription d = nodes.get(node);
    if (d == null) {
      throw new IllegalArgumentException("no simulated node " + node);
    }
    return profile(d);
  }

  /** The GPU model of a simulated node, null for a node without GPUs. */
  public HardwareProfile hardware(String node) {
    NodeDescription d = nodes.get(node);
    if (d == null) {
      throw new IllegalArgumentException("no simulated node " + node);
    }
    return d.hasGpus() ? HardwareProfiles.builtIn(d.profile()) : null;
  }

  /** The node's backend, created on first use. */
  public GpuBackend backend(String node) {
    NodeDescription d = nodes.get(node);
    if (d == null) {
      throw new IllegalArgumentException("no simulated node " + node);
    }
    return backends.computeIfAbsent(node, n -> new SimulatedBackend(profile(d), n));
  }

  /** An opener for the validator that hands out the node's shared backend and never closes it. */
  public GpuBackendOpener opener(String node) {
    return new GpuBackendOpener() {
      @Override
      public GpuBackend open(Path driverRoot) {
        return backend(node);
      }

      @Override
      public void release(GpuBackend backend) {
        // shared by the node's agents; closed with the simulation
      }
    };
  }

  @Override
  public void close() {
    backends.values().forEach(SimulatedBackend::close);
    backends.clear();
  }
}

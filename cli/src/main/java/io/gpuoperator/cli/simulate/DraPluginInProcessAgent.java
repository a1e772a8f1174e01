package io.gpuoperator.cli.simulate;

import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.node.dra.DraNames;
import io.gpuoperator.node.dra.DraPluginAgent;
import io.gpuoperator.node.dra.DraPluginSettings;
import io.gpuoperator.node.dra.PcieRoots;
import io.gpuoperator.node.dra.TimeSlicing;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code gpu-operator dra-plugin} in-process for a simulated node's pod: the real plugin
 * against the node's shared simulated GPUs, its sockets, checkpoint and CDI specs in the node's
 * directories (through the container's hostPath mounts), registering with the node's simulated
 * kubelet. Ready once its slices are published and its sockets serve; stops when the container is
 * killed (its checkpoint stays on the node, as on a real one).
 */
public final class DraPluginInProcessAgent implements InProcessAgent {
  private final SimulatedGpuBackends backends;
  private final Map<String, TimeSlicing.Recording> timeSlices = new ConcurrentHashMap<>();

  public DraPluginInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  /** The time-slices the node's plugin set on its simulated GPUs, by GPU UUID. */
  public Map<String, io.gpuoperator.node.dra.Sharing.Interval> timeSlices(String node) {
    TimeSlicing.Recording r = timeSlices.get(node);
    return r == null ? Map.of() : r.intervals();
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = InProcessEnv.of(ctx);
    String kubelet = DraConstants.KUBELET_ROOT + "/";
    host(ctx, env, DraNames.ENV_REGISTRAR_DIR, kubelet + DraConstants.PLUGINS_REGISTRY_DIR);
    host(ctx, env, DraNames.ENV_PLUGINS_DIR, kubelet + DraConstants.PLUGINS_DIR);
    host(ctx, env, DraNames.ENV_CDI_ROOT, "/var/run/cdi");
    host(ctx, env, DraNames.ENV_MPS_ROOT, "/run/nvidia/mps");
    host(ctx, env, DraNames.ENV_NVIDIA_DRIVER_ROOT, "/run/nvidia/driver");
    DraPluginSettings settings = DraPluginSettings.fromEnv(env);
    TimeSlicing.Recording slices =
        timeSlices.computeIfAbsent(ctx.nodeName(), n -> TimeSlicing.recording());
    try (DraPluginAgent agent =
        new DraPluginAgent(
            backends.backend(ctx.nodeName()),
            ctx.client(),
            settings,
            env,
            slices,
            PcieRoots.simulated(),
            ctx.hostPath("/proc/driver/nvidia-caps/mig-minors"))) {
      agent.start();
      while (!agent.ready()) {
        Thread.sleep(100);
      }
      ctx.markReady();
      Thread.sleep(Long.MAX_VALUE); // until the container is killed (interrupt)
      return 0;
    }
  }

  /** A path setting as the container gives it, resolved through its mounts to the node. */
  private static void host(AgentContext ctx, Map<String, String> env, String name, String fallback)
      throws IOException {
    String path = env.getOrDefault(name, fallback);
    env.put(name, ContainerPaths.resolve(ctx, path).toString());
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.node.deviceplugin.ConfigSource;
import io.gpuoperator.node.deviceplugin.DevicePluginRunner;
import io.gpuoperator.node.deviceplugin.PluginNames;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs {@code gpu-operator device-plugin} in-process for a simulated node's pod: the real plugin
 * code against the node's shared simulated GPUs, registering on the node's own {@code
 * kubelet.sock}. Ready once its resource servers are up; stops when the container is killed.
 */
public final class DevicePluginInProcessAgent implements InProcessAgent {
  private final SimulatedGpuBackends backends;

  public DevicePluginInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put(PluginNames.ENV_NODE_NAME, ctx.nodeName());
    Path socket =
        ctx.hostPath(
            env.getOrDefault(PluginNames.ENV_KUBELET_SOCKET, DevicePluginConstants.KUBELET_SOCKET));
    env.put(PluginNames.ENV_KUBELET_SOCKET, socket.toString());
    ConfigSource source =
        new ConfigSource(
            host(ctx, env.get(PluginNames.ENV_CONFIG_FILE)),
            host(ctx, env.get(PluginNames.ENV_CONFIG_DIR)),
            env.get(PluginNames.ENV_DEFAULT_CONFIG));
    try (DevicePluginRunner runner =
        new DevicePluginRunner(
            backends.backend(ctx.nodeName()),
            env,
            source,
            ctx.client(),
            ctx.nodeName(),
            socket,
            ctx.hostPath("/proc/driver/nvidia-caps/mig-minors"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(1))) {
      runner.start();
      ctx.markReady();
      Thread.sleep(Long.MAX_VALUE); // until the container is killed (interrupt)
      return 0;
    }
  }

  /** Through the container's mounts: the device-plugin config directory is a configMap volume. */
  private static Path host(AgentContext ctx, String path) throws java.io.IOException {
    return path == null || path.isBlank() ? null : ContainerPaths.resolve(ctx, path);
  }
}

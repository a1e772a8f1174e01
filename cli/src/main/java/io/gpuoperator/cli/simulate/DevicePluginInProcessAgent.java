package io.gpuoperator.cli.simulate;

import io.gpuoperator.config.Settings;
import io.gpuoperator.node.deviceplugin.ConfigSource;
import io.gpuoperator.node.deviceplugin.DevicePluginRunner;
import io.gpuoperator.node.deviceplugin.DevicePluginSettings;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs {@code gpu-operator device-plugin} in-process for a simulated node's pod: the real plugin
 * code against the node's shared simulated GPUs, registering on the node's own {@code
 * kubelet.sock}. Ready once its resource servers are up; stops when the container is killed. Holds
 * no thread of its own: its loops run on the JVM's agent threads, its gRPC servers on the shared
 * event loops.
 */
public record DevicePluginInProcessAgent(SimulatedGpuBackends backends)
    implements InProcessService {
  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    Settings settings = Settings.ofEnv(InProcessEnv.of(ctx));
    Path socket = ctx.hostPath(settings.get(DevicePluginSettings.KUBELET_SOCKET).toString());
    ConfigSource source =
        new ConfigSource(
            host(ctx, settings.get(DevicePluginSettings.CONFIG_FILE)),
            host(ctx, settings.get(DevicePluginSettings.CONFIG_DIR)),
            settings.get(DevicePluginSettings.DEFAULT_CONFIG));
    DevicePluginRunner runner =
        new DevicePluginRunner(
            backends.backend(ctx.nodeName()),
            settings,
            source,
            ctx.client(),
            ctx.nodeName(),
            socket,
            ctx.hostPath("/proc/driver/nvidia-caps/mig-minors"),
            Duration.ofMinutes(5),
            Duration.ofSeconds(1));
    try {
      runner.withNodeWatch(ctx.nodeWatch()).start();
    } catch (Exception | Error e) {
      runner.close();
      throw e;
    }
    ctx.markReady();
    return runner;
  }

  /** Through the container's mounts: the device-plugin config directory is a configMap volume. */
  private static Path host(AgentContext ctx, Path path) throws java.io.IOException {
    return path == null ? null : ContainerPaths.resolve(ctx, path.toString());
  }
}

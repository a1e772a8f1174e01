package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.config.ReloadingConfig;
import io.gpuoperator.node.discovery.DiscoveryEnv;
import io.gpuoperator.node.discovery.DiscoverySettings;
import io.gpuoperator.node.discovery.FeatureDiscoveryAgent;
import io.gpuoperator.node.discovery.NodeLabelSink;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs {@code gpu-operator feature-discovery} in-process for a simulated node's pod: the real
 * labeller over the node's shared simulated GPUs, writing the Node's labels directly (the simulated
 * cluster has no NFD). Ready after its first pass.
 */
public final class FeatureDiscoveryInProcessAgent implements InProcessAgent {
  private final SimulatedGpuBackends backends;

  public FeatureDiscoveryInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put("NODE_NAME", ctx.nodeName());
    String file = env.get(DiscoveryEnv.CONFIG_FILE);
    if (file == null || file.isBlank()) {
      file = env.get(DiscoveryEnv.CONFIG_FILE_SHARED);
    }
    // Through the container's mounts: under the original's contract the file is in an emptyDir
    // that NVIDIA's config-manager fills and updates.
    java.util.function.Supplier<DevicePluginConfig> config;
    if (file == null || file.isBlank()) {
      DevicePluginConfig empty = DevicePluginConfigs.empty();
      config = () -> empty;
    } else {
      config = new ReloadingConfig(ContainerPaths.resolve(ctx, file));
    }
    DiscoverySettings s =
        DiscoverySettings.resolve(
            new DiscoverySettings.Flags(
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                ctx.nodeName(),
                null,
                null,
                null,
                null,
                null,
                null),
            env,
            config.get());
    GpuBackend gpus = backends.backend(ctx.nodeName());
    String machine = backends.profileOf(ctx.nodeName()).machineType();
    FeatureDiscoveryAgent agent =
        new FeatureDiscoveryAgent(
            gpus,
            new NodeLabelSink(ctx.client(), ctx.nodeName()),
            s.migStrategy(),
            config,
            s.noTimestamp(),
            () -> machine,
            Clock.systemUTC());
    agent.pass();
    ctx.markReady();
    if (s.oneshot()) {
      return 0;
    }
    agent.run(s.sleepInterval());
    return 0;
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.discovery.DiscoveryEnv;
import io.gpuoperator.node.discovery.DiscoverySettings;
import io.gpuoperator.node.discovery.FeatureDiscoveryAgent;
import io.gpuoperator.node.discovery.NodeLabelSink;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs {@code gpu-operator feature-discovery} in-process for a simulated node's pod: the real
 * labeller over the node's shared simulated GPUs, publishing as a patch of the Node's labels (the
 * simulated cluster has no NFD). Ready after its first pass; stops when the container is killed.
 */
public final class FeatureDiscoveryInProcessAgent implements InProcessAgent {
  private final SimulatedGpuBackends backends;

  public FeatureDiscoveryInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put(DiscoveryEnv.NODE_NAME, ctx.nodeName());
    env.put(DiscoveryEnv.OUTPUT, "node-labels");
    String configFile = env.getOrDefault(DiscoveryEnv.CONFIG_FILE, env.get("CONFIG_FILE"));
    DevicePluginConfig config =
        configFile == null || configFile.isBlank()
            ? DevicePluginConfigs.empty()
            : DevicePluginConfigs.load(ContainerPaths.resolve(ctx, configFile));
    DiscoverySettings s =
        DiscoverySettings.resolve(
            new DiscoverySettings.Flags(
                null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null),
            env,
            config);
    GpuBackend gpus = backends.backend(ctx.nodeName());
    String machine =
        gpus instanceof SimulatedBackend sim ? sim.profile().machineType() : "simulated";
    FeatureDiscoveryAgent agent =
        new FeatureDiscoveryAgent(
            gpus,
            new NodeLabelSink(ctx.client(), ctx.nodeName()),
            s.migStrategy(),
            config,
            s.noTimestamp(),
            () -> machine,
            () -> !gpus.devices().isEmpty(),
            Clock.systemUTC());
    agent.pass();
    ctx.markReady();
    if (s.oneshot()) {
      return 0;
    }
    agent.run(s.sleepInterval()); // interrupted when the container is killed
    return 0;
  }
}

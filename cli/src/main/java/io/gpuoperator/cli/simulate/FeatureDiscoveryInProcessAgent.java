package io.gpuoperator.cli.simulate;

import io.gpuoperator.config.Document;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.config.ReloadingConfig;
import io.gpuoperator.node.discovery.DiscoverySettings;
import io.gpuoperator.node.discovery.FeatureDiscoveryAgent;
import io.gpuoperator.node.discovery.NodeLabelSink;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Runs {@code gpu-operator feature-discovery} in-process for a simulated node's pod: the real
 * labeller over the node's shared simulated GPUs, writing the Node's labels directly (the simulated
 * cluster has no NFD). Ready after its first pass; its later passes run on the JVM's shared agent
 * threads, so it holds no thread between them.
 */
public record FeatureDiscoveryInProcessAgent(SimulatedGpuBackends backends)
    implements InProcessService {
  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    Settings settings = Settings.ofEnv(InProcessEnv.of(ctx));
    Path file = settings.get(DiscoverySettings.CONFIG_FILE);
    // Through the container's mounts: under the original's contract the file is in an emptyDir
    // that NVIDIA's config-manager fills and updates.
    java.util.function.Supplier<DevicePluginConfig> config;
    Document doc = null;
    if (file == null) {
      DevicePluginConfig empty = DevicePluginConfigs.empty();
      config = () -> empty;
    } else {
      ReloadingConfig reloading = new ReloadingConfig(ContainerPaths.resolve(ctx, file.toString()));
      config = reloading;
      doc = reloading.document();
    }
    DiscoverySettings s = DiscoverySettings.resolve(settings.withFile(doc));
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
      return null; // done: the container exits 0
    }
    return agent.startPasses(s.sleepInterval(), "feature-discovery-" + ctx.nodeName());
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.mig.KubernetesNodeOps;
import io.gpuoperator.node.mig.MigCatalog;
import io.gpuoperator.node.mig.MigConfigSource;
import io.gpuoperator.node.mig.MigManagerAgent;
import io.gpuoperator.node.mig.MigReconfigurer;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs {@code gpu-operator mig-manager} in-process for a simulated node's pod: the real MIG manager
 * over the node's shared simulated GPUs (so the device plugin and feature discovery see its changes
 * once they are resumed), reading its config through the pod's ConfigMap volume. Ready once it
 * watches the node; stops when the container is killed. Holds no thread while it waits for a
 * change: changes are applied on the JVM's shared agent threads.
 */
public record MigManagerInProcessAgent(SimulatedGpuBackends backends) implements InProcessService {
  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    String ns = ctx.container().pod().getMetadata().getNamespace();
    MigConfigSource source =
        new MigConfigSource(
            path(ctx, ctx.env().get("CONFIG_FILE")),
            path(ctx, ctx.env().get("DEFAULT_CONFIG_FILE")));
    MigReconfigurer reconfigurer =
        new MigReconfigurer(
            backends.backend(ctx.nodeName()),
            new KubernetesNodeOps(ctx.client(), ctx.nodeName(), ns),
            MigCatalog.builtIn(),
            Duration.ofMinutes(5),
            null);
    MigManagerAgent agent =
        new MigManagerAgent(ctx.nodeWatch(), ctx.nodeName(), source, reconfigurer);
    agent.start("mig-manager-" + ctx.nodeName());
    ctx.markReady();
    return agent;
  }

  private static Path path(AgentContext ctx, String p) throws IOException {
    return p == null || p.isBlank() ? null : ContainerPaths.resolve(ctx, p);
  }
}

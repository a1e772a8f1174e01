package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.toolkit.ToolkitAgent;
import io.gpuoperator.node.toolkit.ToolkitSettings;
import io.gpuoperator.node.toolkit.ToolkitSettings.Setting;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Runs {@code gpu-operator toolkit} in-process for a simulated node's pod: the real agent with the
 * container's environment, its paths resolved through the container's mounts to the node's
 * directories, so it edits the node's containerd config and writes the node's CDI spec from the
 * node's simulated GPUs. A simulated node has no runtime daemon to restart and no containerd binary
 * to ask: restart mode none, config read from the file. Ready once configured; when the container
 * is killed it reverts, as on SIGTERM. Holds no thread while configured.
 */
public record ToolkitInProcessAgent(SimulatedGpuBackends backends) implements InProcessService {
  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    Map<String, String> env = InProcessEnv.of(ctx);
    Map<Setting, String> flags = new EnumMap<>(Setting.class);
    flags.put(Setting.RESTART_MODE, "none");
    flags.put(Setting.CONFIG_SOURCE, "file");
    ToolkitSettings s = ToolkitSettings.resolve(flags, env);
    ToolkitAgent agent =
        new ToolkitAgent(
            s,
            path -> local(ctx, path),
            root -> backends.backend(ctx.nodeName()),
            io.gpuoperator.node.files.AtomicFile.BeforeRename.NONE,
            1,
            Duration.ZERO);
    return agent.start(ctx::markReady);
  }

  private static Path local(AgentContext ctx, String path) {
    Path p = Path.of(path).normalize();
    if (p.isAbsolute() && p.startsWith(ctx.dirs().root())) {
      // Already the node's own: the in-process validator writes node-local paths into
      // driver-ready, which NVIDIA's entrypoint exports (DRIVER_ROOT_CTR_PATH ...).
      return p;
    }
    try {
      return ContainerPaths.resolve(ctx, path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

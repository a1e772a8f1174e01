package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.exporter.ExporterAgent;
import io.gpuoperator.node.exporter.ExporterSettings;
import io.gpuoperator.node.exporter.FieldList;
import io.gpuoperator.node.exporter.PodResourcesClient;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code gpu-operator exporter} in-process for a simulated node's pod: the real exporter over
 * the node's shared simulated GPUs, asking that node's kubelet pod-resources socket (through the
 * container's hostPath mount) which pods hold which devices. Every simulated node shares this
 * machine's network, so each exporter listens on its own free port on 127.0.0.1 instead of the
 * pod's {@code :9400} ({@link #port}). Ready once it serves; stops when the container is killed.
 * Holds no thread of its own: its loops run on the JVM's agent threads, its HTTP on the JVM's one
 * {@link io.gpuoperator.node.exporter.SelectorHttpServer}.
 */
public final class ExporterInProcessAgent implements InProcessService {
  private final SimulatedGpuBackends backends;
  private final Map<String, Integer> ports = new ConcurrentHashMap<>();

  public ExporterInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  /** The port a node's exporter serves on, or null while none runs. */
  public Integer port(String node) {
    return ports.get(node);
  }

  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    Map<String, String> env = InProcessEnv.of(ctx);
    env.put(ExporterSettings.ENV_LISTEN, "127.0.0.1:0");
    env.put(
        ExporterSettings.ENV_POD_RESOURCES_SOCKET,
        ContainerPaths.resolve(ctx, PodResourcesClient.DEFAULT_SOCKET).toString());
    String collectors = env.get(ExporterSettings.ENV_COLLECTORS);
    if (collectors != null && !collectors.isBlank()) {
      env.put(ExporterSettings.ENV_COLLECTORS, ContainerPaths.resolve(ctx, collectors).toString());
    }
    ExporterSettings s = ExporterSettings.fromEnv(env, ctx.nodeName());
    FieldList fields =
        s.collectors() == null ? FieldList.builtIn() : FieldList.load(s.collectors());
    ExporterAgent agent = ExporterAgent.start(s, fields, backends.backend(ctx.nodeName()), true);
    int port = agent.port();
    ports.put(ctx.nodeName(), port);
    ctx.markReady();
    return () -> {
      ports.remove(ctx.nodeName(), port); // not a restarted container's
      agent.close();
    };
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The container toolkit's declared behaviour on a simulated node (its agent is not built yet): it
 * writes what the real toolkit leaves on the host and the toolkit validation checks, the container
 * runtime's {@code nvidia} runtime entry and an NVIDIA CDI spec of the node's GPUs, then runs.
 */
public final class ToolkitAgent implements InProcessAgent {
  static final String DEFAULT_RUNTIME_CONFIG = "/etc/containerd/config.toml";
  static final String DEFAULT_CDI_DIR = "/var/run/cdi";

  private final SimulatedGpuBackends backends;

  public ToolkitAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Map<String, String> env = ctx.env();
    String runtimeConfig = env.getOrDefault("RUNTIME_CONFIG", DEFAULT_RUNTIME_CONFIG);
    Path config = ContainerPaths.resolve(ctx, runtimeConfig);
    ContainerPaths.writeAtomically(config, containerdConfig());
    String dropIn = env.get("RUNTIME_DROP_IN_CONFIG");
    if (dropIn != null && !dropIn.isBlank()) {
      ContainerPaths.writeAtomically(ContainerPaths.resolve(ctx, dropIn), containerdConfig());
    }
    Path cdi = ContainerPaths.resolve(ctx, env.getOrDefault("CDI_OUTPUT_DIR", DEFAULT_CDI_DIR));
    ContainerPaths.writeAtomically(
        cdi.resolve("nvidia.yaml"), cdiSpec(backends.backend(ctx.nodeName())));
    ctx.markReady();
    Thread.sleep(Long.MAX_VALUE); // until the container is killed (interrupt)
    return 0;
  }

  /** A containerd config declaring the nvidia runtime, as nvidia-ctk runtime configure does. */
  static String containerdConfig() {
    return """
        version = 2

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          runtime_type = "io.containerd.runc.v2"

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
          BinaryName = "/usr/local/nvidia/toolkit/nvidia-container-runtime"
        """;
  }

  /** A CDI spec with one device per GPU (by index and UUID) and {@code all}. */
  static String cdiSpec(GpuBackend gpus) {
    StringBuilder out = new StringBuilder();
    out.append("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n");
    List<GpuDevice> devices = gpus.devices();
    for (GpuDevice d : devices) {
      String node = "/dev/nvidia" + d.minor();
      for (String name : List.of(Integer.toString(d.index()), d.uuid())) {
        out.append("- name: \"").append(name).append("\"\n");
        out.append("  containerEdits:\n    deviceNodes:\n");
        out.append("    - path: ").append(node).append('\n');
      }
    }
    out.append("- name: all\n  containerEdits:\n    deviceNodes:\n");
    for (GpuDevice d : devices) {
      out.append("    - path: /dev/nvidia").append(d.minor()).append('\n');
    }
    out.append("containerEdits:\n  deviceNodes:\n  - path: /dev/nvidiactl\n");
    return out.toString();
  }
}

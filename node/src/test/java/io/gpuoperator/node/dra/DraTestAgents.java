package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.node.gpu.GpuBackend;
import java.nio.file.Path;
import java.util.Map;

/**
 * A DRA plugin agent for tests, started with every directory it writes (registration, plugin
 * sockets, CDI specs, MPS) under one root, so tests that run several plugins give each its own
 * root, and time-slicing recorded instead of run.
 */
final class DraTestAgents {
  private DraTestAgents() {}

  /** Starts the agent of {@code node} over {@code backend}, its directories under {@code root}. */
  static DraPluginAgent start(GpuBackend backend, KubernetesClient client, String node, Path root)
      throws Exception {
    Map<String, String> env =
        Map.of(
            DraNames.ENV_NODE_NAME, node,
            DraNames.ENV_REGISTRAR_DIR, root.resolve("plugins_registry").toString(),
            DraNames.ENV_PLUGINS_DIR, root.resolve("plugins").toString(),
            DraNames.ENV_CDI_ROOT, root.resolve("cdi").toString(),
            DraNames.ENV_MPS_ROOT, root.resolve("mps").toString());
    return new DraPluginAgent(
            backend,
            client,
            DraPluginSettings.fromEnv(env),
            env,
            TimeSlicing.recording(),
            PcieRoots.simulated(),
            root.resolve("mig-minors"))
        .start();
  }

  /** The plugin's gRPC socket under {@code root}, where the kubelet calls it. */
  static Path socket(Path root) {
    return root.resolve("plugins/gpu.nvidia.com/dra.sock");
  }
}

package io.gpuoperator.node.agent;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.api.LeanSerialization;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.Kubeconfigs;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.nvml.NvidiaSmi;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.NodeProfile;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The settings every node agent shares, and the one way to act on them: which node this is, which
 * GPU backend to open ({@code nvml} or {@code simulated} with a node profile), and how to reach the
 * cluster. A new agent adds {@link #GROUP} to its {@link SettingOptions} and calls {@link
 * #openBackend} and {@link #client}:
 *
 * <pre>{@code
 * public static final class Options extends SettingOptions {
 *   public Options() {
 *     super(group("Toolkit:", ToolkitSettings.ALL), NodeAgentOptions.GROUP);
 *   }
 * }
 * ...
 * Settings s = SettingOptions.settings(spec, System.getenv(), null);
 * try (GpuBackend gpus = NodeAgentOptions.openBackend(s, null);
 *     KubernetesClient client = NodeAgentOptions.client(s, "toolkit")) { ... }
 * }</pre>
 *
 * Variables keep the names the agents already read: {@code NODE_NAME}, {@code GPU_BACKEND}, {@code
 * GPU_NODE_PROFILE} (or the older {@code NODE_PROFILE}), {@code NVML_LIBRARY}; the kubeconfig comes
 * from {@code --kubeconfig}, else in-cluster, {@code $KUBECONFIG} or {@code ~/.kube/config}.
 */
public final class NodeAgentOptions {
  /** The node's name (Kubernetes: the downward API's {@code spec.nodeName}). */
  public static final Setting<String> NODE_NAME =
      Setting.of("--node-name", Parse::dnsSubdomain)
          .env("NODE_NAME")
          .label("NAME")
          .help("This node's name, as the Node object is called.");

  /** Which GPU backend: NVML, or the simulator over a node profile. */
  public static final Setting<String> BACKEND =
      Setting.of("--backend", Parse.oneOf("GPU backend", List.of("nvml", "simulated")))
          .env("GPU_BACKEND")
          .label("nvml|simulated")
          .help("GPU backend: NVML (real GPUs) or simulated (needs --node-profile).")
          .orElse("nvml");

  /** The simulated node: a built-in profile name or a YAML file. */
  public static final Setting<String> NODE_PROFILE =
      Setting.string("--node-profile")
          .env("GPU_NODE_PROFILE", "NODE_PROFILE")
          .label("NAME|FILE")
          .help(
              "Simulated node profile: a built-in name ("
                  + String.join(", ", HardwareProfiles.BUILT_IN_NODES)
                  + ") or a YAML file.");

  /** The NVML library to load instead of the loader's search path. */
  public static final Setting<Path> NVML_LIBRARY =
      Setting.of("--nvml-library", Parse::path)
          .env("NVML_LIBRARY")
          .label("FILE")
          .help("Path of libnvidia-ml.so.1; without it the dynamic loader's search path.");

  /** The cluster connection. */
  public static final Setting<Path> KUBECONFIG = Kubeconfigs.KUBECONFIG;

  /** Every shared setting, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(NODE_NAME, BACKEND, NODE_PROFILE, NVML_LIBRARY, KUBECONFIG);

  /** The shared settings of an agent that does not talk to the cluster (the exporter). */
  public static final List<Setting<?>> GPU_ONLY =
      List.of(NODE_NAME, BACKEND, NODE_PROFILE, NVML_LIBRARY);

  /** The help section of {@link #GPU_ONLY}. */
  public static final SettingOptions.Group GPU_GROUP =
      SettingOptions.group("Node and GPU backend:", GPU_ONLY);

  /** The help section of the shared settings. */
  public static final SettingOptions.Group GROUP =
      SettingOptions.group("Node, GPU backend and cluster:", ALL);

  private NodeAgentOptions() {}

  /** The node name, or null when none is given. */
  public static String nodeName(Settings s) {
    return s.get(NODE_NAME);
  }

  /**
   * Opens the GPU backend the settings choose. {@code defaultProfile} is the node profile the
   * simulated backend reads when none is named (the validator's simulated driver root), or null. A
   * missing or unknown profile is a ConfigException naming its setting; NVML failures are the
   * backend's own {@link io.gpuoperator.node.gpu.GpuBackendException}s (an environment failure).
   */
  public static GpuBackend openBackend(Settings s, Path defaultProfile, Path sysfs) {
    return openBackend(s, defaultProfile, sysfs, NvidiaSmi.onPath());
  }

  /**
   * As {@link #openBackend(Settings, Path, Path)}, with the {@code nvidia-smi} an NVML backend runs
   * to reset a GPU (the MIG manager's, under its driver roots).
   */
  public static GpuBackend openBackend(
      Settings s, Path defaultProfile, Path sysfs, NvidiaSmi nvidiaSmi) {
    return openBackend(
        s.get(BACKEND),
        s.get(NVML_LIBRARY),
        sysfs,
        nvidiaSmi,
        () -> profile(s, defaultProfile),
        s.get(NODE_NAME));
  }

  /**
   * The one place a backend is opened (the validator comes here too, with the library it found in
   * the driver root): {@code simulated} over the profile {@code profile} supplies, else NVML from
   * {@code library} (null: the loader's search path).
   */
  public static GpuBackend openBackend(
      String kind,
      Path library,
      Path sysfs,
      java.util.function.Supplier<NodeProfile> profile,
      String nodeName) {
    return openBackend(kind, library, sysfs, NvidiaSmi.onPath(), profile, nodeName);
  }

  /** As above, with the {@code nvidia-smi} an NVML backend resets GPUs with. */
  public static GpuBackend openBackend(
      String kind,
      Path library,
      Path sysfs,
      NvidiaSmi nvidiaSmi,
      java.util.function.Supplier<NodeProfile> profile,
      String nodeName) {
    if ("simulated".equals(kind)) {
      return new SimulatedBackend(profile.get(), nodeName == null ? "localhost" : nodeName);
    }
    return NvmlBackend.open(library, sysfs == null ? Path.of("/sys") : sysfs, nvidiaSmi);
  }

  /** The simulated node profile the settings name (or {@code defaultProfile}). */
  public static NodeProfile profile(Settings s, Path defaultProfile) {
    Settings.Resolved<String> p = s.resolve(NODE_PROFILE);
    if (p.value() == null) {
      if (defaultProfile != null) {
        return HardwareProfiles.loadNode(defaultProfile);
      }
      throw s.error(BACKEND, "the simulated backend needs --node-profile (or GPU_NODE_PROFILE)");
    }
    return namedProfile(p.value(), p.origin());
  }

  /** A built-in profile name or a file; errors start with {@code origin} (the setting). */
  public static NodeProfile namedProfile(String nameOrFile, String origin) {
    try {
      return HardwareProfiles.node(nameOrFile);
    } catch (ConfigException e) {
      throw new ConfigException(
          ("default".equals(origin) ? NODE_PROFILE.name() : origin) + ": " + e.getMessage(), e);
    }
  }

  /**
   * A client for the cluster: {@code --kubeconfig}, else in-cluster, {@code $KUBECONFIG} or {@code
   * ~/.kube/config}; an unusable kubeconfig is a ConfigException naming the file.
   */
  public static KubernetesClient client(Settings s, String agent) {
    Settings.Resolved<Path> file = s.resolve(KUBECONFIG);
    Config config = Kubeconfigs.load(file.value(), file.origin());
    config.setUserAgent("gpu-operator/" + agent);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(LeanSerialization.create())
        .build();
  }

  /** Whether a kubeconfig was named or the process runs in a cluster. */
  public static boolean clusterConfigured(Settings s, Map<String, String> env) {
    return s.isGiven(KUBECONFIG) || env.get("KUBERNETES_SERVICE_HOST") != null;
  }
}

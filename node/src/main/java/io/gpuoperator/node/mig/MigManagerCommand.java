package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.config.GoDuration;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.ProfileException;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator mig-manager}: applies the node's {@code nvidia.com/mig.config}. */
@Command(
    name = "mig-manager",
    mixinStandardHelpOptions = true,
    description = {
      "Applies the MIG configuration named by this node's nvidia.com/mig.config label and reports",
      "nvidia.com/mig.config.state (pending, rebooting, success, failed); GPU clients are paused",
      "while the GPUs change. Flags override the environment variables named in each option."
    })
public class MigManagerCommand implements Callable<Integer> {
  /** Environment variables (the original's names where it has them). */
  static final String ENV_NODE_NAME = "NODE_NAME";

  static final String ENV_CONFIG_FILE = "CONFIG_FILE";
  static final String ENV_DEFAULT_CONFIG_FILE = "DEFAULT_CONFIG_FILE";
  static final String ENV_WITH_REBOOT = "WITH_REBOOT";
  static final String ENV_HOST_ROOT = "HOST_ROOT_MOUNT";
  static final String ENV_NAMESPACE = "OPERATOR_NAMESPACE";
  static final String ENV_POD_NAMESPACE = "POD_NAMESPACE";
  static final String ENV_PODS_TIMEOUT = "MIG_PODS_GONE_TIMEOUT";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--node-name", description = "This node (env NODE_NAME; required)")
  String nodeName;

  @Option(
      names = "--config-file",
      description = "The MIG config file, version v1 (env CONFIG_FILE); must exist when given")
  String configFile;

  @Option(
      names = "--default-config-file",
      description =
          "Used when no config file is given (env DEFAULT_CONFIG_FILE); when absent too, the"
              + " configs generated from the hardware tables")
  String defaultConfigFile;

  @Option(
      names = "--with-reboot",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Reboot the node when a MIG mode change needs a GPU reset that fails (env WITH_REBOOT;"
              + " default false)")
  Boolean withReboot;

  @Option(
      names = "--host-root",
      description = "The host's root for the reboot (env HOST_ROOT_MOUNT; default /host)")
  String hostRoot;

  @Option(
      names = "--namespace",
      description = "Namespace of the GPU client pods (env OPERATOR_NAMESPACE, POD_NAMESPACE)")
  String namespace;

  @Option(
      names = "--pods-timeout",
      description =
          "How long to wait for GPU client pods to go, Go syntax (env MIG_PODS_GONE_TIMEOUT;"
              + " default 5m)")
  String podsTimeout;

  @Option(names = "--kubeconfig", description = "kubeconfig (env KUBECONFIG; default in-cluster)")
  String kubeconfig;

  @Option(names = "--backend", description = "nvml or simulated (env GPU_BACKEND; default nvml)")
  String backend;

  @Option(
      names = "--node-profile",
      description = "Simulated node: built-in name or YAML file (env GPU_NODE_PROFILE)")
  String nodeProfile;

  @Option(names = "--nvml-library", description = "libnvidia-ml.so.1 to load (env NVML_LIBRARY)")
  String nvmlLibrary;

  /** The environment; tests replace it. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    String node = pick(nodeName, ENV_NODE_NAME);
    if (node == null) {
      err.println("mig-manager: --node-name (or NODE_NAME) is required");
      return 2;
    }
    MigConfigSource source =
        new MigConfigSource(
            path(pick(configFile, ENV_CONFIG_FILE)),
            path(pick(defaultConfigFile, ENV_DEFAULT_CONFIG_FILE)));
    Duration timeout;
    boolean reboot;
    try {
      String t = pick(podsTimeout, ENV_PODS_TIMEOUT);
      timeout = t == null ? Duration.ofMinutes(5) : GoDuration.parse(t);
      reboot = parseBoolean(withReboot != null ? withReboot.toString() : env.get(ENV_WITH_REBOOT));
      source.get(); // a bad file is reported now, not at the first change
    } catch (ConfigException | IllegalArgumentException e) {
      err.println("mig-manager: " + e.getMessage());
      return 2;
    }
    String ns = pick(namespace, ENV_NAMESPACE);
    if (ns == null) {
      ns = env.getOrDefault(ENV_POD_NAMESPACE, "gpu-operator");
    }
    String root = pick(hostRoot, ENV_HOST_ROOT);
    Path host = Path.of(root == null ? "/host" : root);
    GpuBackend gpus;
    try {
      gpus = openBackend(node);
    } catch (GpuBackendException | ProfileException | IllegalArgumentException e) {
      err.println("mig-manager: cannot read the GPUs: " + e.getMessage());
      return 1;
    }
    try (gpus;
        KubernetesClient client = client(pick(kubeconfig, "KUBECONFIG"))) {
      MigReconfigurer.Rebooter rebooter =
          reboot
              ? () -> new ProcessBuilder("chroot", host.toString(), "reboot").inheritIO().start()
              : null;
      MigReconfigurer reconfigurer =
          new MigReconfigurer(
              gpus,
              new KubernetesNodeOps(client, node, ns),
              MigCatalog.builtIn(),
              timeout,
              rebooter);
      MigManagerAgent agent = new MigManagerAgent(client, node, source, reconfigurer);
      Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "mig-manager-stop"));
      agent.run();
      return 0;
    }
  }

  private String pick(String flag, String envName) {
    if (flag != null && !flag.isBlank()) {
      return flag;
    }
    String v = env.get(envName);
    return v == null || v.isBlank() ? null : v;
  }

  private static Path path(String p) {
    return p == null ? null : Path.of(p);
  }

  static boolean parseBoolean(String v) {
    if (v == null || v.isBlank()) {
      return false;
    }
    return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default ->
          throw new IllegalArgumentException(
              ENV_WITH_REBOOT + ": expected true or false, got '" + v + "'");
    };
  }

  private GpuBackend openBackend(String node) {
    String kind = backend != null ? backend : env.getOrDefault("GPU_BACKEND", "nvml");
    if (kind.equals("simulated")) {
      String profile = nodeProfile != null ? nodeProfile : env.get("GPU_NODE_PROFILE");
      if (profile == null) {
        throw new IllegalArgumentException(
            "--backend simulated needs --node-profile (or GPU_NODE_PROFILE)");
      }
      return new SimulatedBackend(HardwareProfiles.node(profile), node);
    }
    if (!kind.equals("nvml")) {
      throw new IllegalArgumentException("--backend: expected nvml or simulated, got " + kind);
    }
    String lib = nvmlLibrary != null ? nvmlLibrary : env.get("NVML_LIBRARY");
    return NvmlBackend.open(lib == null ? null : Path.of(lib), Path.of("/sys"));
  }

  private static KubernetesClient client(String kubeconfig) throws IOException {
    Config config =
        kubeconfig == null
            ? Config.autoConfigure(null)
            : Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)));
    config.setUserAgent("gpu-operator/mig-manager");
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}

package io.gpuoperator.node.discovery;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.config.ReloadingConfig;
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
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator feature-discovery}: GPU feature discovery, labelling this node. */
@Command(
    name = "feature-discovery",
    mixinStandardHelpOptions = true,
    description = {
      "Labels this node with its GPUs' features (NVIDIA GPU feature discovery labels).",
      "Precedence: flag, then environment variable, then the config file's flags, then default."
    })
public class FeatureDiscoveryCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(FeatureDiscoveryCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--mig-strategy",
      description = "none, single or mixed (env GFD_MIG_STRATEGY, MIG_STRATEGY; default none)")
  String migStrategy;

  @Option(
      names = "--fail-on-init-error",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Exit when the GPU backend cannot start (env GFD_FAIL_ON_INIT_ERROR; default true)")
  Boolean failOnInitError;

  @Option(
      names = "--oneshot",
      arity = "0..1",
      fallbackValue = "true",
      description = "Label once and exit (env GFD_ONESHOT)")
  Boolean oneshot;

  @Option(
      names = "--no-timestamp",
      arity = "0..1",
      fallbackValue = "true",
      description = "Leave out nvidia.com/gfd.timestamp (env GFD_NO_TIMESTAMP)")
  Boolean noTimestamp;

  @Option(
      names = "--sleep-interval",
      description =
          "Time between passes, Go syntax or 'infinite' (env GFD_SLEEP_INTERVAL; default 60s)")
  String sleepInterval;

  @Option(
      names = {"-o", "--output-file"},
      description =
          "NFD feature file (env GFD_OUTPUT_FILE; default "
              + DiscoveryEnv.DEFAULT_OUTPUT_FILE
              + ")")
  String outputFile;

  @Option(
      names = "--machine-type-file",
      description =
          "DMI product name file (env GFD_MACHINE_TYPE_FILE; default "
              + DiscoveryEnv.DEFAULT_MACHINE_TYPE_FILE
              + ")")
  String machineTypeFile;

  @Option(
      names = "--config-file",
      description = "Device-plugin config file, version v1 (env GFD_CONFIG_FILE, CONFIG_FILE)")
  String configFile;

  @Option(
      names = "--use-node-feature-api",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Publish NodeFeature objects; false writes the feature file (env GFD_USE_NODE_FEATURE_API; default true)")
  Boolean useNodeFeatureApi;

  @Option(
      names = "--output",
      description =
          "auto, file, node-feature or node-labels (env GFD_OUTPUT). auto: NodeFeature when NFD serves it, else the Node's labels; the file when there is no cluster")
  String output;

  @Option(names = "--node-name", description = "This node (env NODE_NAME)")
  String nodeName;

  @Option(
      names = "--namespace",
      description = "Namespace of the NodeFeature (env POD_NAMESPACE; default default)")
  String namespace;

  @Option(
      names = "--kubeconfig",
      description = "kubeconfig file (env KUBECONFIG; default in-cluster)")
  String kubeconfig;

  @Option(names = "--backend", description = "nvml or simulated (env GPU_BACKEND; default nvml)")
  String backend;

  @Option(
      names = "--node-profile",
      description =
          "Simulated node: built-in name ("
              + "dgx-h100, dgx-h100-mig-mixed, ...) or YAML file (env GPU_NODE_PROFILE)")
  String nodeProfile;

  @Option(
      names = "--nvml-library",
      description =
          "libnvidia-ml.so.1 to load (env NVML_LIBRARY; default: the loader's search path)")
  String nvmlLibrary;

  @Option(
      names = "--sysfs-root",
      description =
          "sysfs root of the GPUs' PCI devices for NVML (env GFD_SYSFS_ROOT; default /sys)")
  String sysfsRoot;

  /** The environment; tests replace it. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    DiscoverySettings s;
    Supplier<DevicePluginConfig> config;
    try {
      String cfg = configFile;
      if (cfg == null) {
        cfg = firstEnv(DiscoveryEnv.CONFIG_FILE, DiscoveryEnv.CONFIG_FILE_SHARED);
      }
      if (cfg == null) {
        DevicePluginConfig empty = DevicePluginConfigs.empty();
        config = () -> empty;
      } else {
        config = new ReloadingConfig(Path.of(cfg));
      }
      s = DiscoverySettings.resolve(flags(), env, config.get());
    } catch (ConfigException | ProfileException e) {
      err.println("feature-discovery: " + e.getMessage());
      return 2;
    }
    GpuBackend gpus;
    try {
      gpus = openBackend(s);
    } catch (GpuBackendException | ProfileException e) {
      if (s.failOnInitError()) {
        err.println("feature-discovery: cannot start the GPU backend: " + e.getMessage());
        return 1;
      }
      LOG.warn("GPU backend failed to start; labelling without GPUs: {}", e.getMessage());
      gpus = null;
    }
    try (KubernetesClient client = needsCluster(s) ? client(s) : null) {
      LabelSink sink;
      try {
        sink = sink(s, client);
      } catch (ConfigException e) {
        err.println("feature-discovery: " + e.getMessage());
        return 2;
      }
      FeatureDiscoveryAgent agent =
          new FeatureDiscoveryAgent(
              gpus,
              sink,
              s.migStrategy(),
              config,
              s.noTimestamp(),
              machineType(s, gpus),
              Clock.systemUTC());
      if (s.oneshot()) {
        try {
          agent.pass();
          return 0;
        } catch (Exception e) {
          err.println("feature-discovery: labelling failed: " + e.getMessage());
          return 1;
        }
      }
      Thread hook = new Thread(agent::stop, "feature-discovery-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      onSighup(agent);
      agent.run(s.sleepInterval());
      return 0;
    } finally {
      if (gpus != null) {
        gpus.close();
      }
    }
  }

  /** SIGHUP (sent by the config-manager sidecar) runs a pass now, with the config re-read. */
  @SuppressWarnings("restriction")
  private static void onSighup(FeatureDiscoveryAgent agent) {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> agent.wake());
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      LOG.warn("no SIGHUP handling here: {}", e.getMessage());
    }
  }

  private String firstEnv(String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  DiscoverySettings.Flags flags() {
    return new DiscoverySettings.Flags(
        migStrategy,
        failOnInitError,
        oneshot,
        noTimestamp,
        sleepInterval,
        outputFile,
        machineTypeFile,
        useNodeFeatureApi,
        output,
        nodeName,
        namespace,
        kubeconfig,
        backend,
        nodeProfile,
        nvmlLibrary,
        sysfsRoot);
  }

  static GpuBackend openBackend(DiscoverySettings s) {
    if (s.backend().equals("simulated")) {
      String node = s.nodeName() == null ? "localhost" : s.nodeName();
      return new SimulatedBackend(HardwareProfiles.node(s.nodeProfile()), node);
    }
    return NvmlBackend.open(
        s.nvmlLibrary() == null ? null : Path.of(s.nvmlLibrary()),
        Path.of(s.sysfsRoot() == null ? "/sys" : s.sysfsRoot()));
  }

  private boolean needsCluster(DiscoverySettings s) {
    return switch (s.output()) {
      case "file" -> false;
      case "auto" -> s.kubeconfig() != null || env.get("KUBERNETES_SERVICE_HOST") != null;
      default -> true;
    };
  }

  private static KubernetesClient client(DiscoverySettings s) throws IOException {
    Config config =
        s.kubeconfig() == null
            ? Config.autoConfigure(null)
            : Config.fromKubeconfig(Files.readString(Path.of(s.kubeconfig())));
    config.setUserAgent("gpu-operator/feature-discovery");
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  static LabelSink sink(DiscoverySettings s, KubernetesClient client) {
    String mode = s.output();
    if (mode.equals("auto")) {
      mode =
          client == null
              ? "file"
              : NodeFeatureSink.available(client) ? "node-feature" : "node-labels";
    }
    if (!mode.equals("file") && s.nodeName() == null) {
      throw new ConfigException("--node-name (or NODE_NAME) is required for output " + mode);
    }
    return switch (mode) {
      case "file" -> new FeatureFileSink(Path.of(s.outputFile()));
      case "node-feature" -> new NodeFeatureSink(client, s.namespace(), s.nodeName());
      default -> new NodeLabelSink(client, s.nodeName());
    };
  }

  static Supplier<String> machineType(DiscoverySettings s, GpuBackend gpus) {
    if (s.machineTypeFile() == null && gpus instanceof SimulatedBackend sim) {
      String type = sim.profile().machineType();
      return () -> type;
    }
    Path file =
        Path.of(
            s.machineTypeFile() == null
                ? DiscoveryEnv.DEFAULT_MACHINE_TYPE_FILE
                : s.machineTypeFile());
    return () -> {
      try {
        return Files.readString(file).trim();
      } catch (IOException e) {
        return null;
      }
    };
  }
}

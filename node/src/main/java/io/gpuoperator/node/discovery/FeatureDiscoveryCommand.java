package io.gpuoperator.node.discovery;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.WritablePaths;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.config.ReloadingConfig;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code gpu-operator feature-discovery}: GPU feature discovery, labelling this node. */
@Command(
    name = "feature-discovery",
    modelTransformer = FeatureDiscoveryCommand.Options.class,
    header = "Labels this node with its GPUs' features, as NVIDIA's GPU feature discovery.",
    description = {
      "Writes the nvidia.com/gpu.*, cuda.* and mig.* labels to a NodeFeature, the Node or NFD's"
          + " feature file.",
      "Precedence: flag, then environment variable, then the config file's flags, then the"
          + " default."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:labelled (--oneshot)",
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the GPUs or the cluster failed",
      "2:bad input: a flag, variable or config file (the message names it)"
    })
public class FeatureDiscoveryCommand extends AgentCommand {
  private static final Logger LOG = LoggerFactory.getLogger(FeatureDiscoveryCommand.class);

  /** The options: feature discovery's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("Feature discovery:", DiscoverySettings.ALL), NodeAgentOptions.GROUP);
    }
  }

  @Override
  public Integer call() throws Exception {
    Settings flagsAndEnv = SettingOptions.settings(spec, env, null);
    Path cfg = flagsAndEnv.get(DiscoverySettings.CONFIG_FILE);
    Supplier<DevicePluginConfig> config;
    Settings settings;
    if (cfg == null) {
      DevicePluginConfig empty = DevicePluginConfigs.empty();
      config = () -> empty;
      settings = flagsAndEnv;
    } else {
      ReloadingConfig reloading = new ReloadingConfig(cfg);
      config = reloading;
      settings = flagsAndEnv.withFile(reloading.document());
    }
    DiscoverySettings s = DiscoverySettings.resolve(settings);
    if (s.output().equals("file")) {
      WritablePaths.directory(s.outputFile().toAbsolutePath().getParent(), "--output-file");
    }
    GpuBackend gpus;
    try {
      gpus = NodeAgentOptions.openBackend(settings, null, s.sysfsRoot());
    } catch (GpuBackendException e) {
      if (s.failOnInitError()) {
        throw new EnvironmentException(
            "cannot start the GPU backend: "
                + e.getMessage()
                + " (is the driver loaded? --fail-on-init-error=false labels without GPUs)",
            e);
      }
      LOG.warn("GPU backend failed to start; labelling without GPUs: {}", e.getMessage());
      gpus = null;
    }
    try (KubernetesClient client =
        needsCluster(s, settings) ? NodeAgentOptions.client(settings, "feature-discovery") : null) {
      LabelSink sink = sink(s, client);
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
        } catch (ConfigException | EnvironmentException e) {
          throw e;
        } catch (Exception e) {
          throw new EnvironmentException("labelling failed: " + e.getMessage(), e);
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

  private boolean needsCluster(DiscoverySettings s, Settings settings) {
    return switch (s.output()) {
      case "file" -> false;
      case "auto" -> NodeAgentOptions.clusterConfigured(settings, env);
      default -> true;
    };
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
      case "file" -> new FeatureFileSink(s.outputFile());
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
        s.machineTypeFile() == null
            ? Path.of(DiscoverySettings.DEFAULT_MACHINE_TYPE_FILE)
            : s.machineTypeFile();
    return () -> {
      try {
        return Files.readString(file).trim();
      } catch (IOException e) {
        return null;
      }
    };
  }
}

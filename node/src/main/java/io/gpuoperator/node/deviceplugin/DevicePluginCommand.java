package io.gpuoperator.node.deviceplugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.WritablePaths;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.DriverReady;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.agent.StopHooks;
import io.gpuoperator.node.fault.GpuFaultSettings;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.HealthMonitor;
import io.gpuoperator.node.gpu.XidPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code gpu-operator device-plugin}: the kubelet device plugin for NVIDIA GPUs. */
@Command(
    name = "device-plugin",
    modelTransformer = DevicePluginCommand.Options.class,
    header = "Advertises this node's GPUs to the kubelet as nvidia.com/gpu or MIG resources.",
    description = {
      "Serves the device-plugin API v1beta1, one Unix socket per resource (nvidia.com/gpu,"
          + " nvidia.com/mig-<profile>), and registers each with the kubelet.",
      "Precedence: flag, then environment variable, then the config file, then the default."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the GPUs cannot be read (with failOnInitError) or the kubelet cannot be reached",
      "2:bad input: a flag, variable or config file (the message names it)"
    })
public class DevicePluginCommand extends AgentCommand {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginCommand.class);

  /** The options: the plugin's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(
          group("Device plugin:", DevicePluginSettings.ALL),
          group("GPU fault conditions:", GpuFaultSettings.ALL),
          NodeAgentOptions.GROUP);
    }
  }

  @Override
  public Integer call() throws Exception {
    // Where the validator found the driver, over the DaemonSet's guess (DriverReady).
    Settings s = SettingOptions.settings(spec, DriverReady.overlay(env), null);
    // Everything that can be checked is checked before anything is opened or started.
    ConfigSource source =
        new ConfigSource(
            s.get(DevicePluginSettings.CONFIG_FILE),
            s.get(DevicePluginSettings.CONFIG_DIR),
            s.get(DevicePluginSettings.DEFAULT_CONFIG));
    String node = NodeAgentOptions.nodeName(s);
    Duration recovery = s.get(HealthMonitor.RECOVERY_PERIOD);
    Path socket = s.get(DevicePluginSettings.KUBELET_SOCKET);
    Path cdiDir = s.get(DevicePluginSettings.CDI_SPEC_DIR);
    XidPolicy.from(s);
    s.get(NodeAgentOptions.BACKEND);
    // The config label and the GPU fault conditions both need the API server. The conditions are
    // on by default, so they are written only where a cluster is configured: a plugin run by hand
    // with a node name and no API access serves its devices without retrying writes forever.
    boolean conditions =
        s.get(GpuFaultSettings.CONDITIONS) && NodeAgentOptions.clusterConfigured(s, env);
    s.get(GpuFaultSettings.ESCALATION_WINDOW);
    s.get(GpuFaultSettings.POLL_INTERVAL);
    s.get(GpuFaultSettings.RETIRED_ROWS_THRESHOLD);
    KubernetesClient client =
        (source.labelled() || conditions) && node != null
            ? NodeAgentOptions.client(s, "device-plugin")
            : null;
    GpuBackend gpus = null;
    DevicePluginRunner runner;
    try {
      DevicePluginSettings initial = DevicePluginRunner.initialSettings(source, s, client, node);
      if (initial.deviceListStrategies().stream().anyMatch(DeviceListStrategy::cdi)) {
        WritablePaths.directory(s, DevicePluginSettings.CDI_SPEC_DIR);
      }
      try {
        gpus = NodeAgentOptions.openBackend(s, null, null);
      } catch (GpuBackendException e) {
        if (initial.failOnInitError()) {
          throw new EnvironmentException(
              "cannot read the GPUs: "
                  + e.getMessage()
                  + " (is the driver loaded? --fail-on-init-error=false waits instead)",
              e);
        }
        spec.commandLine()
            .getErr()
            .println(
                spec.qualifiedName()
                    + ": cannot read the GPUs ("
                    + e.getMessage()
                    + "); failOnInitError=false: waiting indefinitely");
        new CountDownLatch(1).await();
        return 0;
      }
      runner =
          new DevicePluginRunner(
              gpus,
              s,
              source,
              client,
              node,
              socket,
              Path.of("/proc/driver/nvidia-caps/mig-minors"),
              recovery,
              Duration.ofSeconds(1));
      runner.withCdiSpecDir(cdiDir).start();
    } catch (Exception | Error e) {
      if (gpus != null) {
        gpus.close();
      }
      if (client != null) {
        client.close();
      }
      throw e;
    }
    CountDownLatch done = new CountDownLatch(1);
    GpuBackend backend = gpus;
    Thread stop =
        new Thread(
            () -> {
              runner.close();
              backend.close();
              if (client != null) {
                client.close();
              }
              done.countDown();
            });
    Runtime.getRuntime().addShutdownHook(stop);
    onSighup(runner);
    LOG.info("device plugin running; kubelet socket {}", socket);
    // Interrupted (node-agents stops this agent), it releases everything now.
    StopHooks.awaitOrRelease(done, stop);
    return 0;
  }

  @SuppressWarnings("restriction")
  private static void onSighup(DevicePluginRunner runner) {
    try {
      sun.misc.Signal.handle(
          new sun.misc.Signal("HUP"),
          sig -> {
            LOG.info("SIGHUP: restarting every resource");
            runner.restartAll();
          });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      LOG.warn("no SIGHUP handling here: {}", e.getMessage());
    }
  }
}

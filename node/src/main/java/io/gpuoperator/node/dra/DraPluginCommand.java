package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.DriverReady;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.fault.GpuFaultSettings;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.XidPolicy;
import io.gpuoperator.node.gpu.nvml.NvidiaSmi;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** {@code gpu-operator dra-plugin}: the kubelet plugin of the {@code gpu.nvidia.com} DRA driver. */
@Command(
    name = "dra-plugin",
    modelTransformer = DraPluginCommand.Options.class,
    header = "Publishes this node's GPUs as DRA devices and prepares the claims allocated to them.",
    description = {
      "Publishes this node's GPUs and MIG devices as ResourceSlices of the DRA driver"
          + " gpu.nvidia.com and prepares the ResourceClaims the scheduler allocates from them.",
      "Precedence: flag, then environment variable, then the default."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the GPUs, the kubelet's directories or the cluster failed",
      "2:bad input: a flag or variable (the message names it)"
    })
public class DraPluginCommand extends AgentCommand {
  private static final Logger LOG = LoggerFactory.getLogger(DraPluginCommand.class);

  /** The options: the DRA plugin's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("DRA plugin:", DraPluginSettings.ALL), NodeAgentOptions.GROUP);
    }
  }

  @Override
  public Integer call() throws Exception {
    // Where the validator found the driver, over the DaemonSet's guess (DriverReady).
    Settings s = SettingOptions.settings(spec, DriverReady.overlay(env), null);
    DraPluginSettings settings = DraPluginSettings.resolve(s);
    XidPolicy.from(s); // checked now; the agent reads it again from the environment
    // The GPU fault condition settings are variables only here (the agent reads them from the
    // environment); a bad value stops the command now, naming the variable.
    Settings faultEnv = Settings.ofEnv(env);
    GpuFaultSettings.ALL.forEach(faultEnv::get);
    Path sysfs = s.get(DraPluginSettings.SYSFS_ROOT);
    boolean simulated = s.get(NodeAgentOptions.BACKEND).equals("simulated");
    GpuBackend gpus;
    try {
      gpus = NodeAgentOptions.openBackend(s, null, null);
    } catch (GpuBackendException e) {
      throw new EnvironmentException(
          "cannot read the GPUs: "
              + e.getMessage()
              + " (is the driver loaded and the driver root right?)",
          e);
    }
    KubernetesClient client;
    try {
      client = NodeAgentOptions.client(s, "dra-plugin");
    } catch (RuntimeException e) {
      gpus.close();
      throw e;
    }
    DraPluginAgent agent =
        new DraPluginAgent(
            gpus,
            client,
            settings,
            env,
            simulated
                ? TimeSlicing.recording()
                : TimeSlicing.nvidiaSmi(NvidiaSmi.forDriverRoot(settings.driverRoot(), null, env)),
            simulated ? PcieRoots.simulated() : PcieRoots.sysfs(sysfs),
            Path.of("/proc/driver/nvidia-caps/mig-minors"));
    try {
      agent.start();
    } catch (IOException | RuntimeException e) {
      agent.close();
      gpus.close();
      client.close();
      throw new EnvironmentException("cannot start: " + e.getMessage(), e);
    }
    CountDownLatch done = new CountDownLatch(1);
    Thread stop =
        new Thread(
            () -> {
              agent.close();
              gpus.close();
              client.close();
              done.countDown();
            });
    Runtime.getRuntime().addShutdownHook(stop);
    LOG.info("DRA plugin running for node {}", settings.nodeName());
    // Interrupted (node-agents stops this agent), it releases everything now.
    io.gpuoperator.node.agent.StopHooks.awaitOrRelease(done, stop);
    return 0;
  }
}

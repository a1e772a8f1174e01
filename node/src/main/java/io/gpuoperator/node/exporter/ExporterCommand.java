package io.gpuoperator.node.exporter;

import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/** {@code gpu-operator exporter}: GPU metrics with the DCGM exporter's names, for Prometheus. */
@Command(
    name = "exporter",
    modelTransformer = ExporterCommand.Options.class,
    header = "Serves GPU metrics with the DCGM exporter's names and labels, for Prometheus.",
    description = {
      "Serves GPU metrics on /metrics (Prometheus text or OpenMetrics), /health and /,"
          + " attributing devices to pods through the kubelet's pod-resources API. The DCGM"
          + " exporter's flags and environment variables work unchanged.",
      "Precedence: flag, then environment variable, then the default."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the GPUs could not be read or the address is taken",
      "2:bad input: a flag, variable or counters file (the message names it)"
    })
public class ExporterCommand extends AgentCommand {

  /** The options: the exporter's settings, then the node and GPU backend ones agents share. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("Exporter:", ExporterSettings.ALL), NodeAgentOptions.GPU_GROUP);
    }
  }

  @Override
  public Integer call() throws Exception {
    Settings settings = SettingOptions.settings(spec, env, null);
    ExporterSettings s = ExporterSettings.resolve(settings, localHostname());
    FieldList fields =
        s.collectors() == null ? FieldList.builtIn() : FieldList.load(s.collectors());
    GpuBackend gpus;
    try {
      gpus = NodeAgentOptions.openBackend(settings, null, null);
    } catch (GpuBackendException e) {
      throw new EnvironmentException(
          "cannot start the GPU backend: " + e.getMessage() + " (is the driver loaded?)", e);
    }
    try (gpus;
        ExporterAgent agent = ExporterAgent.start(s, fields, gpus)) {
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "exporter-stop"));
      stop.await();
      return 0;
    }
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}

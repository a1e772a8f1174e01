package io.gpuoperator.node.exporter;

import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.ProfileException;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator exporter}: GPU metrics with the DCGM exporter's names, for Prometheus. */
@Command(
    name = "exporter",
    mixinStandardHelpOptions = true,
    description = {
      "Serves GPU metrics with the DCGM exporter's names and labels on /metrics (Prometheus text",
      "or OpenMetrics), /health and /, attributing devices to pods through the kubelet's",
      "pod-resources API. The DCGM exporter's flags and environment variables work unchanged.",
      "Precedence: flag, then environment variable, then default."
    })
public class ExporterCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-f", "--collectors"},
      description =
          "Counters CSV in the DCGM exporter's format (env DCGM_EXPORTER_COLLECTORS; default: the"
              + " built-in list)")
  String collectors;

  @Option(
      names = {"-a", "--address"},
      description = "Listen address [host]:port (env DCGM_EXPORTER_LISTEN; default :9400)")
  String address;

  @Option(
      names = {"-c", "--collect-interval"},
      description =
          "Collection interval in milliseconds, at least 1000 (env DCGM_EXPORTER_INTERVAL;"
              + " default 30000)")
  String interval;

  @Option(
      names = {"-k", "--kubernetes"},
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Label series with the pod, namespace and container holding the device (env"
              + " DCGM_EXPORTER_KUBERNETES)")
  Boolean kubernetes;

  @Option(
      names = "--kubernetes-gpu-id-type",
      description =
          "uid or device-name (env DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE; both forms are"
              + " recognised)")
  String gpuIdType;

  @Option(
      names = {"-d", "--devices"},
      description =
          "f (GPU instances of MIG GPUs, other GPUs whole), g[:ids] or i[:ids] (env"
              + " DCGM_EXPORTER_DEVICES_STR; default f)")
  String devices;

  @Option(
      names = {"-r", "--remote-hostengine-info"},
      description =
          "Accepted for compatibility and ignored: there is no DCGM host engine (env"
              + " DCGM_REMOTE_HOSTENGINE_INFO)")
  String remoteHostengine;

  @Option(
      names = "--pod-resources-kubelet-socket",
      description =
          "The kubelet's pod-resources socket (env DCGM_EXPORTER_POD_RESOURCES_SOCKET; default "
              + PodResourcesClient.DEFAULT_SOCKET
              + ")")
  String podResourcesSocket;

  @Option(names = "--no-hostname", description = "Leave out the Hostname label")
  Boolean noHostname;

  @Option(
      names = "--node-name",
      description = "This node, the Hostname label's value (env NODE_NAME; default the host name)")
  String nodeName;

  @Option(names = "--backend", description = "nvml or simulated (env GPU_BACKEND; default nvml)")
  String backend;

  @Option(
      names = "--node-profile",
      description = "Simulated node profile: a built-in name or a file (env GPU_NODE_PROFILE)")
  String nodeProfile;

  @Option(names = "--nvml-library", description = "Path of libnvidia-ml.so.1 (env NVML_LIBRARY)")
  String nvmlLibrary;

  private final Map<String, String> env;

  public ExporterCommand() {
    this(System.getenv());
  }

  ExporterCommand(Map<String, String> env) {
    this.env = env;
  }

  ExporterSettings.Flags flags() {
    return new ExporterSettings.Flags(
        collectors,
        address,
        interval,
        kubernetes,
        gpuIdType,
        devices,
        remoteHostengine,
        podResourcesSocket,
        noHostname,
        nodeName,
        backend,
        nodeProfile,
        nvmlLibrary);
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    ExporterSettings s;
    FieldList fields;
    try {
      s = ExporterSettings.resolve(flags(), env, localHostname());
      fields = s.collectors() == null ? FieldList.builtIn() : FieldList.load(s.collectors());
    } catch (ConfigException e) {
      err.println("exporter: " + e.getMessage());
      return 2;
    }
    GpuBackend gpus;
    try {
      gpus = open(s);
    } catch (GpuBackendException | ProfileException e) {
      err.println("exporter: cannot start the GPU backend: " + e.getMessage());
      return 1;
    }
    try (gpus;
        ExporterAgent agent = ExporterAgent.start(s, fields, gpus)) {
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "exporter-stop"));
      stop.await();
      return 0;
    }
  }

  static GpuBackend open(ExporterSettings s) {
    if (s.backend().equals("simulated")) {
      String node = s.hostname() == null ? "localhost" : s.hostname();
      return new SimulatedBackend(HardwareProfiles.node(s.nodeProfile()), node);
    }
    return NvmlBackend.open(
        s.nvmlLibrary() == null ? null : Path.of(s.nvmlLibrary()), Path.of("/sys"));
  }

  private static String localHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}

package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.DriverReady;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.nvml.NvidiaSmi;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code gpu-operator mig-manager}: applies the node's {@code nvidia.com/mig.config}. */
@Command(
    name = "mig-manager",
    modelTransformer = MigManagerCommand.Options.class,
    header = "Applies the MIG configuration this node's nvidia.com/mig.config label names.",
    description = {
      "Applies the MIG configuration named by this node's nvidia.com/mig.config label and reports"
          + " nvidia.com/mig.config.state (pending, rebooting, success, failed); GPU clients are"
          + " paused while the GPUs change.",
      "Precedence: flag, then environment variable, then the default."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the GPUs or the cluster failed",
      "2:bad input: a flag, variable or MIG config file (the message names it)"
    })
public class MigManagerCommand extends AgentCommand {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(MigManagerCommand.class);
  public static final Setting<Path> CONFIG_FILE =
      Setting.of("--config-file", Parse::path)
          .env("CONFIG_FILE")
          .label("FILE")
          .help("The MIG config file (version: v1); must exist when given.");
  public static final Setting<Path> DEFAULT_CONFIG_FILE =
      Setting.of("--default-config-file", Parse::path)
          .env("DEFAULT_CONFIG_FILE")
          .label("FILE")
          .help("Used when no config file is given, if it exists.")
          .orElseDescribed("the configs generated from the hardware tables");
  public static final Setting<Boolean> WITH_REBOOT =
      Setting.bool("--with-reboot")
          .env("WITH_REBOOT")
          .help("Reboot the node when a MIG mode change needs a GPU reset that fails.")
          .orElse(false);
  public static final Setting<Path> HOST_ROOT =
      Setting.of("--host-root", Parse::path)
          .env("HOST_ROOT_MOUNT")
          .label("DIR")
          .help("The host's root: the reboot and the host's systemctl run chrooted there.")
          .orElse(Path.of("/host"));
  public static final Setting<Path> DRIVER_ROOT =
      Setting.of("--nvidia-driver-root", Parse::path)
          .env("NVIDIA_DRIVER_ROOT", "DRIVER_ROOT")
          .label("DIR")
          .help(
              "Where the driver is installed on the host (/ for a host driver); its nvidia-smi"
                  + " resets GPUs, looked up there, below the host root, then in the host root.")
          .orElse(Path.of("/run/nvidia/driver"));
  public static final Setting<String> NAMESPACE =
      Setting.of("--namespace", Parse::dnsLabel)
          .env("OPERATOR_NAMESPACE", "POD_NAMESPACE")
          .label("NS")
          .help("Namespace of the GPU client pods paused during a change.")
          .orElse("gpu-operator");
  public static final Setting<Duration> PODS_TIMEOUT =
      Setting.of("--pods-timeout", Parse.duration(Duration.ofSeconds(1), Duration.ofHours(24)))
          .env("MIG_PODS_GONE_TIMEOUT")
          .label("DURATION")
          .help("How long to wait for GPU client pods to go (5m, 90s ...).")
          .orElse(Duration.ofMinutes(5), "5m");

  public static final Setting<Path> GPU_CLIENTS_FILE =
      Setting.of("--gpu-clients-file", Parse::path)
          .env("GPU_CLIENTS_FILE")
          .label("FILE")
          .help(
              "The host GPU clients file (version: v1, systemd-services: [...]); must exist when"
                  + " host clients are shut down.")
          .orElseDescribed("no host services");
  public static final Setting<Boolean> WITH_SHUTDOWN_HOST_GPU_CLIENTS =
      Setting.bool("--with-shutdown-host-gpu-clients")
          .env("WITH_SHUTDOWN_HOST_GPU_CLIENTS")
          .help(
              "Stop the active host services of the GPU clients file during a change and start"
                  + " them again after.")
          .orElseDescribed("IS_HOST_DRIVER of the driver-ready file (true for a host driver)");
  public static final Setting<Path> DRIVER_READY_FILE =
      Setting.of("--driver-ready-file", Parse::path)
          .env(DriverReady.FILE_ENV)
          .label("FILE")
          .help("The validator's driver-ready marker, read for IS_HOST_DRIVER.")
          .orElse(DriverReady.DEFAULT_FILE, DriverReady.DEFAULT_FILE.toString());

  /** The MIG manager's own settings, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          CONFIG_FILE,
          DEFAULT_CONFIG_FILE,
          WITH_REBOOT,
          HOST_ROOT,
          DRIVER_ROOT,
          NAMESPACE,
          PODS_TIMEOUT,
          GPU_CLIENTS_FILE,
          WITH_SHUTDOWN_HOST_GPU_CLIENTS,
          DRIVER_READY_FILE);

  /** The options: the MIG manager's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("MIG manager:", ALL), NodeAgentOptions.GROUP);
    }
  }

  @Override
  public Integer call() throws Exception {
    // Where the validator found the driver, over the DaemonSet's guess (DriverReady).
    Settings s = SettingOptions.settings(spec, DriverReady.overlay(env), null);
    String node = NodeAgentOptions.nodeName(s);
    if (node == null) {
      throw new ConfigException(
          NodeAgentOptions.NODE_NAME.flag() + ": required (or NODE_NAME); the node to manage");
    }
    MigConfigSource source = new MigConfigSource(s.get(CONFIG_FILE), s.get(DEFAULT_CONFIG_FILE));
    Duration timeout = s.get(PODS_TIMEOUT);
    boolean reboot = s.get(WITH_REBOOT);
    Path host = s.get(HOST_ROOT);
    String ns = s.get(NAMESPACE);
    source.get(); // a bad file is reported now, not at the first change
    HostGpuClients hostClients =
        hostClients(
            s.get(WITH_SHUTDOWN_HOST_GPU_CLIENTS),
            s.get(GPU_CLIENTS_FILE),
            s.get(DRIVER_READY_FILE),
            host,
            CommandRunner.processes());
    GpuBackend gpus;
    try {
      NvidiaSmi smi = NvidiaSmi.forDriverRoot(s.get(DRIVER_ROOT), host, env);
      gpus = NodeAgentOptions.openBackend(s, null, null, smi);
    } catch (GpuBackendException e) {
      throw new EnvironmentException(
          "cannot read the GPUs: " + e.getMessage() + " (is the driver loaded?)", e);
    }
    try (gpus;
        KubernetesClient client = NodeAgentOptions.client(s, "mig-manager")) {
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
              rebooter,
              hostClients);
      MigManagerAgent agent = new MigManagerAgent(client, node, source, reconfigurer);
      Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "mig-manager-stop"));
      agent.run();
      return 0;
    }
  }

  /**
   * The host services to stop during a change, as the original's entrypoint decides: with {@code
   * WITH_SHUTDOWN_HOST_GPU_CLIENTS} unset, only when the validator found a host driver ({@code
   * IS_HOST_DRIVER=true} in driver-ready): a containerised driver has no host clients. The file is
   * read now, so a bad one fails the agent with its line and field, and again at each change.
   */
  static HostGpuClients hostClients(
      Boolean shutdown, Path clientsFile, Path driverReady, Path hostRoot, CommandRunner runner) {
    boolean on = shutdown != null ? shutdown : DriverReady.isHostDriver(driverReady);
    if (!on) {
      LOG.info(
          "host GPU clients: left alone ({})",
          shutdown != null
              ? WITH_SHUTDOWN_HOST_GPU_CLIENTS.env().get(0) + "=false"
              : "no host driver per " + driverReady);
      return HostGpuClients.NONE;
    }
    if (clientsFile == null) {
      LOG.info("host GPU clients: none ({} not set)", GPU_CLIENTS_FILE.env().get(0));
      return HostGpuClients.NONE;
    }
    if (!Files.isRegularFile(clientsFile)) {
      throw new ConfigException(
          clientsFile
              + " ("
              + GPU_CLIENTS_FILE.env().get(0)
              + ") does not exist; host GPU clients are to be shut down"
              + " (WITH_SHUTDOWN_HOST_GPU_CLIENTS or a host driver)");
    }
    List<String> services = GpuClientsFile.load(clientsFile).systemdServices();
    LOG.info("host GPU clients: {} via chroot {}", services, hostRoot);
    return HostGpuClients.chroot(runner, hostRoot, clientsFile);
  }
}

package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator dra-plugin}: the kubelet plugin of the {@code gpu.nvidia.com} DRA driver. */
@Command(
    name = "dra-plugin",
    mixinStandardHelpOptions = true,
    description = {
      "Publishes this node's GPUs and MIG devices as ResourceSlices of the DRA driver",
      "gpu.nvidia.com and prepares the ResourceClaims the scheduler allocates from them.",
      "Precedence: flag, then environment variable, then default."
    })
public class DraPluginCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(DraPluginCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--node-name", description = "This node (env NODE_NAME; required)")
  String nodeName;

  @Option(names = "--kubeconfig", description = "Kubeconfig (env KUBECONFIG; default in-cluster)")
  String kubeconfig;

  @Option(
      names = "--cdi-root",
      description = "Where claim CDI specs are written (env CDI_ROOT; default /var/run/cdi)")
  String cdiRoot;

  @Option(
      names = "--nvidia-driver-root",
      description = "Driver root on the host (env NVIDIA_DRIVER_ROOT; default /)")
  String driverRoot;

  @Option(
      names = "--nvidia-dev-root",
      description = "Device-node root on the host (env NVIDIA_DEV_ROOT; default the driver root)")
  String devRoot;

  @Option(
      names = "--kubelet-registrar-directory-path",
      description =
          "The kubelet's plugin-registration directory (env KUBELET_REGISTRAR_DIRECTORY_PATH;"
              + " default /var/lib/kubelet/plugins_registry)")
  String registrarDir;

  @Option(
      names = "--kubelet-plugins-directory-path",
      description =
          "The kubelet's plugin directory (env KUBELET_PLUGINS_DIRECTORY_PATH; default"
              + " /var/lib/kubelet/plugins)")
  String pluginsDir;

  @Option(
      names = "--partitionable-devices",
      description =
          "auto, true or false: publish MIG placements as partitionable devices (env"
              + " PARTITIONABLE_DEVICES; default auto = Kubernetes 1.36+)")
  String partitionable;

  @Option(
      names = "--rescan-interval",
      description =
          "How often the GPUs are read again, Go syntax (env RESCAN_INTERVAL; default 10s)")
  String rescanInterval;

  @Option(
      names = "--mps-root",
      description =
          "Host directory of the claims' MPS pipes (env MPS_ROOT; default /run/nvidia/mps)")
  String mpsRoot;

  @Option(names = "--backend", description = "nvml or simulated (env GPU_BACKEND; default nvml)")
  String backend;

  @Option(
      names = "--node-profile",
      description = "Simulated node profile: a built-in name or a file (env GPU_NODE_PROFILE)")
  String nodeProfile;

  @Option(names = "--nvml-library", description = "Path of libnvidia-ml.so.1 (env NVML_LIBRARY)")
  String nvmlLibrary;

  @Option(
      names = "--sysfs-root",
      description = "sysfs, for the GPUs' PCIe roots (env SYSFS_ROOT; default /sys)")
  String sysfsRoot;

  private final Map<String, String> env;

  public DraPluginCommand() {
    this(System.getenv());
  }

  DraPluginCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws Exception {
    Map<String, String> merged = new HashMap<>(env);
    put(merged, DraNames.ENV_NODE_NAME, nodeName);
    put(merged, DraNames.ENV_CDI_ROOT, cdiRoot);
    put(merged, DraNames.ENV_NVIDIA_DRIVER_ROOT, driverRoot);
    put(merged, DraNames.ENV_NVIDIA_DEV_ROOT, devRoot);
    put(merged, DraNames.ENV_REGISTRAR_DIR, registrarDir);
    put(merged, DraNames.ENV_PLUGINS_DIR, pluginsDir);
    put(merged, DraNames.ENV_PARTITIONABLE_DEVICES, partitionable);
    put(merged, DraNames.ENV_RESCAN_INTERVAL, rescanInterval);
    put(merged, DraNames.ENV_MPS_ROOT, mpsRoot);
    var err = spec.commandLine().getErr();
    DraPluginSettings settings;
    GpuBackend gpus;
    boolean simulated;
    try {
      settings = DraPluginSettings.fromEnv(merged);
      String kind = backend != null ? backend : merged.getOrDefault("GPU_BACKEND", "nvml");
      simulated = kind.equals("simulated");
      if (!simulated && !kind.equals("nvml")) {
        throw new IllegalArgumentException("--backend: expected nvml or simulated, got " + kind);
      }
      try {
        gpus = simulated ? simulatedBackend(merged, settings.nodeName()) : nvml(merged);
      } catch (GpuBackendException e) {
        err.println(
            "dra-plugin: cannot read the GPUs: "
                + e.getMessage()
                + " (is the driver loaded and the driver root right?)");
        return 1;
      }
    } catch (IllegalArgumentException e) {
      err.println("dra-plugin: " + e.getMessage());
      return 2;
    }
    KubernetesClient client = client(kubeconfig != null ? kubeconfig : merged.get("KUBECONFIG"));
    Path sysfs = Path.of(sysfsRoot != null ? sysfsRoot : merged.getOrDefault("SYSFS_ROOT", "/sys"));
    DraPluginAgent agent =
        new DraPluginAgent(
            gpus,
            client,
            settings,
            merged,
            simulated ? TimeSlicing.recording() : TimeSlicing.nvidiaSmi(nvidiaSmi(settings)),
            simulated ? PcieRoots.simulated() : PcieRoots.sysfs(sysfs),
            Path.of("/proc/driver/nvidia-caps/mig-minors"));
    try {
      agent.start();
    } catch (IOException | RuntimeException e) {
      err.println("dra-plugin: " + e.getMessage());
      agent.close();
      gpus.close();
      client.close();
      return 1;
    }
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  agent.close();
                  gpus.close();
                  client.close();
                  done.countDown();
                }));
    LOG.info("DRA plugin running for node {}", settings.nodeName());
    done.await();
    return 0;
  }

  private GpuBackend simulatedBackend(Map<String, String> merged, String node) {
    String profile =
        nodeProfile != null
            ? nodeProfile
            : merged.getOrDefault("GPU_NODE_PROFILE", merged.get("NODE_PROFILE"));
    if (profile == null) {
      throw new IllegalArgumentException(
          "--backend simulated needs --node-profile (or GPU_NODE_PROFILE)");
    }
    return new SimulatedBackend(HardwareProfiles.node(profile), node);
  }

  private GpuBackend nvml(Map<String, String> merged) {
    String lib = nvmlLibrary != null ? nvmlLibrary : merged.get("NVML_LIBRARY");
    return NvmlBackend.open(lib == null ? null : Path.of(lib), Path.of("/sys"));
  }

  /** The driver root's {@code nvidia-smi}, else the one on PATH. */
  private static Path nvidiaSmi(DraPluginSettings settings) {
    Path inRoot = settings.driverRoot().resolve("usr/bin/nvidia-smi");
    return Files.isExecutable(inRoot) ? inRoot : Path.of("nvidia-smi");
  }

  private static KubernetesClient client(String kubeconfig) {
    try {
      Config config =
          kubeconfig == null
              ? Config.autoConfigure(null)
              : Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)));
      config.setUserAgent("gpu-operator/dra-plugin");
      return new KubernetesClientBuilder().withConfig(config).build();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--kubeconfig: cannot read " + kubeconfig + ": " + e.getMessage());
    }
  }

  private static void put(Map<String, String> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}

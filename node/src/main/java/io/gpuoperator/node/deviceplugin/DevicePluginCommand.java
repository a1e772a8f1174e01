package io.gpuoperator.node.deviceplugin;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.config.GoDuration;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator device-plugin}: the kubelet device plugin for NVIDIA GPUs. */
@Command(
    name = "device-plugin",
    mixinStandardHelpOptions = true,
    description = {
      "Advertises this node's GPUs (nvidia.com/gpu, nvidia.com/mig-<profile>) to the kubelet",
      "through the device-plugin API v1beta1, one Unix socket per resource.",
      "Precedence: flag, then environment variable, then the config file, then default."
    })
public class DevicePluginCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--mig-strategy", description = "none, single or mixed (env MIG_STRATEGY)")
  String migStrategy;

  @Option(
      names = "--fail-on-init-error",
      arity = "0..1",
      fallbackValue = "true",
      description = "Exit when the GPUs cannot be read (env FAIL_ON_INIT_ERROR; default true)")
  String failOnInitError;

  @Option(names = "--nvidia-driver-root", description = "Driver root (env NVIDIA_DRIVER_ROOT)")
  String driverRoot;

  @Option(names = "--nvidia-dev-root", description = "Device-node root (env NVIDIA_DEV_ROOT)")
  String devRoot;

  @Option(
      names = "--pass-device-specs",
      arity = "0..1",
      fallbackValue = "true",
      description = "Add device nodes to Allocate answers (env PASS_DEVICE_SPECS)")
  String passDeviceSpecs;

  @Option(
      names = "--device-list-strategy",
      description =
          "envvar, volume-mounts, cdi-annotations, cdi-cri; comma-separated (env"
              + " DEVICE_LIST_STRATEGY)")
  String deviceListStrategy;

  @Option(names = "--device-id-strategy", description = "uuid or index (env DEVICE_ID_STRATEGY)")
  String deviceIdStrategy;

  @Option(
      names = "--cdi-annotation-prefix",
      description = "CDI annotation prefix (env CDI_ANNOTATION_PREFIX)")
  String cdiAnnotationPrefix;

  @Option(
      names = "--shared-devices-allocation-policy",
      description = "distributed or packed (env SHARED_DEVICES_ALLOCATION_POLICY)")
  String allocationPolicy;

  @Option(names = "--mps-root", description = "MPS root directory (env MPS_ROOT)")
  String mpsRoot;

  @Option(
      names = "--kubelet-socket",
      description =
          "The kubelet's registration socket (env KUBELET_SOCKET; default ${DEFAULT-VALUE})",
      defaultValue = DevicePluginConstants.KUBELET_SOCKET)
  String kubeletSocket;

  @Option(
      names = "--cdi-spec-dir",
      description =
          "Where the plugin writes its CDI spec when a CDI strategy is used (env CDI_SPEC_DIR;"
              + " default /var/run/cdi)")
  String cdiSpecDir;

  @Option(names = "--config-file", description = "Config file, version v1 (env CONFIG_FILE)")
  String configFile;

  @Option(
      names = "--config-dir",
      description =
          "Directory of named configs; the node label nvidia.com/device-plugin.config picks one"
              + " (env CONFIG_FILE_SRCDIR)")
  String configDir;

  @Option(
      names = "--default-config",
      description = "Config name used when the node has no label (env DEFAULT_CONFIG)")
  String defaultConfig;

  @Option(
      names = "--health-recovery-period",
      description =
          "Quiet period after which an unhealthy device is healthy again, Go syntax; 0 never"
              + " (env DP_HEALTH_RECOVERY_PERIOD; default 5m)")
  String recoveryPeriod;

  @Option(names = "--node-name", description = "This node (env NODE_NAME)")
  String nodeName;

  @Option(names = "--kubeconfig", description = "Kubeconfig for the node label (env KUBECONFIG)")
  String kubeconfig;

  @Option(names = "--backend", description = "nvml or simulated (env GPU_BACKEND; default nvml)")
  String backend;

  @Option(
      names = "--node-profile",
      description =
          "Simulated node profile: a built-in name or a file (env GPU_NODE_PROFILE or NODE_PROFILE)")
  String nodeProfile;

  @Option(names = "--nvml-library", description = "Path of libnvidia-ml.so.1 (env NVML_LIBRARY)")
  String nvmlLibrary;

  private final Map<String, String> env;

  public DevicePluginCommand() {
    this(System.getenv());
  }

  DevicePluginCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws Exception {
    Map<String, String> merged = new HashMap<>(env);
    put(merged, PluginNames.ENV_MIG_STRATEGY, migStrategy);
    put(merged, PluginNames.ENV_FAIL_ON_INIT_ERROR, failOnInitError);
    put(merged, PluginNames.ENV_NVIDIA_DRIVER_ROOT, driverRoot);
    put(merged, PluginNames.ENV_NVIDIA_DEV_ROOT, devRoot);
    put(merged, PluginNames.ENV_PASS_DEVICE_SPECS, passDeviceSpecs);
    put(merged, PluginNames.ENV_DEVICE_LIST_STRATEGY, deviceListStrategy);
    put(merged, PluginNames.ENV_DEVICE_ID_STRATEGY, deviceIdStrategy);
    put(merged, PluginNames.ENV_CDI_ANNOTATION_PREFIX, cdiAnnotationPrefix);
    put(merged, PluginNames.ENV_SHARED_DEVICES_ALLOCATION_POLICY, allocationPolicy);
    put(merged, PluginNames.ENV_MPS_ROOT, mpsRoot);
    put(merged, PluginNames.ENV_CONFIG_FILE, configFile);
    put(merged, PluginNames.ENV_CDI_SPEC_DIR, cdiSpecDir);
    put(merged, PluginNames.ENV_CONFIG_DIR, configDir);
    put(merged, PluginNames.ENV_DEFAULT_CONFIG, defaultConfig);
    put(merged, PluginNames.ENV_HEALTH_RECOVERY_PERIOD, recoveryPeriod);
    put(merged, PluginNames.ENV_NODE_NAME, nodeName);
    if (spec.commandLine().getParseResult().hasMatchedOption("--kubelet-socket")
        || !merged.containsKey(PluginNames.ENV_KUBELET_SOCKET)) {
      merged.put(PluginNames.ENV_KUBELET_SOCKET, kubeletSocket);
    }
    var err = spec.commandLine().getErr();
    GpuBackend gpus;
    DevicePluginRunner runner;
    KubernetesClient client = null;
    try {
      Duration recovery;
      try {
        recovery =
            GoDuration.parse(merged.getOrDefault(PluginNames.ENV_HEALTH_RECOVERY_PERIOD, "5m"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            PluginNames.ENV_HEALTH_RECOVERY_PERIOD + ": " + e.getMessage(), e);
      }
      String node = merged.get(PluginNames.ENV_NODE_NAME);
      ConfigSource source =
          new ConfigSource(
              path(merged.get(PluginNames.ENV_CONFIG_FILE)),
              path(merged.get(PluginNames.ENV_CONFIG_DIR)),
              merged.get(PluginNames.ENV_DEFAULT_CONFIG));
      if (source.labelled() && node != null) {
        client = client(kubeconfig != null ? kubeconfig : merged.get("KUBECONFIG"));
      }
      boolean failOnInit = SettingsResolver.resolve(null, merged).failOnInitError();
      try {
        gpus = openBackend(merged, node);
      } catch (GpuBackendException e) {
        if (failOnInit) {
          err.println("device-plugin: cannot read the GPUs: " + e.getMessage());
          return 1;
        }
        err.println(
            "device-plugin: cannot read the GPUs ("
                + e.getMessage()
                + "); failOnInitError=false: waiting indefinitely");
        new CountDownLatch(1).await();
        return 0;
      }
      runner =
          new DevicePluginRunner(
              gpus,
              merged,
              source,
              client,
              node,
              Path.of(merged.get(PluginNames.ENV_KUBELET_SOCKET)),
              Path.of("/proc/driver/nvidia-caps/mig-minors"),
              recovery,
              Duration.ofSeconds(1));
      runner
          .withCdiSpecDir(
              Path.of(merged.getOrDefault(PluginNames.ENV_CDI_SPEC_DIR, "/var/run/cdi")))
          .start();
    } catch (ConfigException | IllegalArgumentException e) {
      err.println("device-plugin: " + e.getMessage());
      if (client != null) {
        client.close();
      }
      return 2;
    }
    CountDownLatch done = new CountDownLatch(1);
    KubernetesClient c = client;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  runner.close();
                  gpus.close();
                  if (c != null) {
                    c.close();
                  }
                  done.countDown();
                }));
    onSighup(runner);
    LOG.info(
        "device plugin running; kubelet socket {}", merged.get(PluginNames.ENV_KUBELET_SOCKET));
    done.await();
    return 0;
  }

  private GpuBackend openBackend(Map<String, String> merged, String node) {
    String kind = backend != null ? backend : merged.getOrDefault("GPU_BACKEND", "nvml");
    if (kind.equals("simulated")) {
      // feature-discovery reads GPU_NODE_PROFILE, the validator NODE_PROFILE: take either.
      String profile =
          nodeProfile != null
              ? nodeProfile
              : merged.getOrDefault("GPU_NODE_PROFILE", merged.get("NODE_PROFILE"));
      if (profile == null) {
        throw new IllegalArgumentException(
            "--backend simulated needs --node-profile (or GPU_NODE_PROFILE)");
      }
      return new SimulatedBackend(
          HardwareProfiles.node(profile), node == null ? "localhost" : node);
    }
    if (!kind.equals("nvml")) {
      throw new IllegalArgumentException("--backend: expected nvml or simulated, got " + kind);
    }
    String lib = nvmlLibrary != null ? nvmlLibrary : merged.get("NVML_LIBRARY");
    return NvmlBackend.open(lib == null ? null : Path.of(lib), Path.of("/sys"));
  }

  @SuppressWarnings("restriction")
  private static void onSighup(DevicePluginRunner runner) {
    try {
      sun.misc.Signal.handle(
          new sun.misc.Signal("HUP"),
          s -> {
            LOG.info("SIGHUP: restarting every resource");
            runner.restartAll();
          });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      LOG.warn("no SIGHUP handling here: {}", e.getMessage());
    }
  }

  private static KubernetesClient client(String kubeconfig) {
    try {
      Config config =
          kubeconfig == null
              ? Config.autoConfigure(null)
              : Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)));
      config.setUserAgent("gpu-operator/device-plugin");
      return new KubernetesClientBuilder().withConfig(config).build();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--kubeconfig: cannot read " + kubeconfig + ": " + e.getMessage());
    }
  }

  private static Path path(String s) {
    return s == null || s.isBlank() ? null : Path.of(s);
  }

  private static void put(Map<String, String> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}

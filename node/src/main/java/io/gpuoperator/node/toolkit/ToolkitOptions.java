package io.gpuoperator.node.toolkit;

import io.gpuoperator.node.cdi.GpuBackendChoice;
import io.gpuoperator.node.toolkit.ToolkitSettings.Setting;
import java.util.EnumMap;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The toolkit's flags, declared once on {@code toolkit} and inherited by {@code install} and {@code
 * uninstall}, so {@code toolkit --config X install} and {@code toolkit install --config X} set the
 * same field (two copies, one per command, once let a flag before the subcommand go unread and the
 * host's default config be written instead).
 */
public class ToolkitOptions {
  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "containerd|crio",
      names = "--runtime",
      description = "containerd or crio (env RUNTIME; default containerd)")
  String runtime;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--config",
      description =
          "The runtime's main config (env CONTAINERD_CONFIG / CRIO_CONFIG, RUNTIME_CONFIG; default"
              + " /etc/containerd/config.toml, /etc/crio/crio.conf)")
  String config;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--drop-in-config",
      description =
          "Drop-in file; empty edits the main file (env RUNTIME_DROP_IN_CONFIG; default"
              + " /etc/containerd/conf.d/99-nvidia.toml, /etc/crio/crio.conf.d/99-nvidia.conf)")
  String dropIn;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--drop-in-config-host-path",
      description =
          "The drop-in's path on the host, which containerd imports (env"
              + " RUNTIME_DROP_IN_CONFIG_HOST_PATH; default: --drop-in-config)")
  String dropInHostPath;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--socket",
      description =
          "The runtime's socket (env CONTAINERD_SOCKET, RUNTIME_SOCKET; default"
              + " /run/containerd/containerd.sock)")
  String socket;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "signal|systemd|none",
      names = "--restart-mode",
      description =
          "signal, systemd or none (env RUNTIME_RESTART_MODE; default signal for containerd,"
              + " systemd for CRI-O)")
  String restartMode;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "SOURCES",
      names = "--config-source",
      description =
          "Where the current config is read: command (containerd config dump) and/or file (env"
              + " RUNTIME_CONFIG_SOURCE; default command,file)")
  String configSource;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      names = "--nvidia-runtime-name",
      description = "Name of the main runtime (env CONTAINERD_RUNTIME_CLASS; default nvidia)")
  String runtimeName;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "BOOL",
      names = "--set-as-default",
      arity = "0..1",
      fallbackValue = "true",
      description = "Make it the default runtime (env NVIDIA_RUNTIME_SET_AS_DEFAULT; default true)")
  String setAsDefault;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--toolkit-root",
      description =
          "Host directory whose toolkit/ holds the runtime binaries (env ROOT,"
              + " TOOLKIT_INSTALL_DIR; default /usr/local/nvidia)")
  String toolkitRoot;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "BOOL",
      names = "--cdi-enabled",
      arity = "0..1",
      fallbackValue = "true",
      description = "Turn on CDI and write the CDI spec (env CDI_ENABLED; default false)")
  String cdiEnabled;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--cdi-output-dir",
      description = "Where the CDI spec goes (env CDI_OUTPUT_DIR; default /var/run/cdi)")
  String cdiOutputDir;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "CDI_KIND",
      names = "--cdi-kind",
      description = "The spec's kind (env CDI_KIND; default management.nvidia.com/gpu)")
  String cdiKind;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--host-root",
      description = "The host's root as seen here (env HOST_ROOT_MOUNT; default /)")
  String hostRoot;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--pid-file",
      description = "Pid file (env TOOLKIT_PID_FILE; default /run/nvidia/toolkit/toolkit.pid)")
  String pidFile;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--driver-root",
      description =
          "Driver root on the host (env NVIDIA_DRIVER_ROOT, DRIVER_ROOT; default /run/nvidia/driver)")
  String driverRoot;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--driver-root-ctr-path",
      description =
          "Where the driver root is seen here (env DRIVER_ROOT_CTR_PATH; default: --driver-root)")
  String driverRootCtrPath;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--dev-root",
      description = "Root of /dev on the host (env NVIDIA_DEV_ROOT, DEV_ROOT)")
  String devRoot;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      names = "--dev-root-ctr-path",
      description = "Where the dev root is seen here (env DEV_ROOT_CTR_PATH)")
  String devRootCtrPath;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "BOOL",
      names = "--no-runtime-config",
      arity = "0..1",
      fallbackValue = "true",
      description = "Leave the runtime's config alone; CDI spec only (env NO_RUNTIME_CONFIG)")
  String noRuntimeConfig;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "config|hook",
      names = "--crio-config-mode",
      description = "config (runtime handlers; the only mode here) or hook (env CRIO_CONFIG_MODE)")
  String crioConfigMode;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--containerd-path",
      description =
          "containerd executable for config dump (env CONTAINERD_PATH; default containerd)")
  String containerdPath;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "nvml|simulated",
      names = "--backend",
      description = "nvml or simulated, for the CDI spec (env GPU_BACKEND)")
  String backend;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "NAME|FILE",
      names = "--node-profile",
      description = "Simulated node profile (env GPU_NODE_PROFILE)")
  String nodeProfile;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      names = "--nvml-library",
      description = "libnvidia-ml.so.1 to load (env NVML_LIBRARY)")
  String nvmlLibrary;

  @Option(
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      names = "--node-name",
      description = "This node (env NODE_NAME)")
  String nodeName;

  /** The flags given, by setting. */
  Map<Setting, String> flags() {
    Map<Setting, String> m = new EnumMap<>(Setting.class);
    put(m, Setting.RUNTIME, runtime);
    put(m, Setting.CONFIG, config);
    put(m, Setting.DROP_IN, dropIn);
    put(m, Setting.DROP_IN_HOST_PATH, dropInHostPath);
    put(m, Setting.SOCKET, socket);
    put(m, Setting.RESTART_MODE, restartMode);
    put(m, Setting.CONFIG_SOURCE, configSource);
    put(m, Setting.RUNTIME_NAME, runtimeName);
    put(m, Setting.SET_AS_DEFAULT, setAsDefault);
    put(m, Setting.TOOLKIT_ROOT, toolkitRoot);
    put(m, Setting.CDI_ENABLED, cdiEnabled);
    put(m, Setting.CDI_OUTPUT_DIR, cdiOutputDir);
    put(m, Setting.CDI_KIND, cdiKind);
    put(m, Setting.HOST_ROOT, hostRoot);
    put(m, Setting.PID_FILE, pidFile);
    put(m, Setting.DRIVER_ROOT, driverRoot);
    put(m, Setting.DRIVER_ROOT_CTR_PATH, driverRootCtrPath);
    put(m, Setting.DEV_ROOT, devRoot);
    put(m, Setting.DEV_ROOT_CTR_PATH, devRootCtrPath);
    put(m, Setting.NO_RUNTIME_CONFIG, noRuntimeConfig);
    put(m, Setting.CRIO_CONFIG_MODE, crioConfigMode);
    put(m, Setting.CONTAINERD_PATH, containerdPath);
    put(m, Setting.BACKEND, backend);
    put(m, Setting.NODE_PROFILE, nodeProfile);
    put(m, Setting.NVML_LIBRARY, nvmlLibrary);
    put(m, Setting.NODE_NAME, nodeName);
    return m;
  }

  private static void put(Map<Setting, String> m, Setting s, String v) {
    if (v != null) {
      m.put(s, v);
    }
  }

  /** The GPU backend for the CDI spec. */
  static GpuBackendChoice backend(ToolkitSettings s) {
    return new GpuBackendChoice(s.backend(), s.nodeProfile(), s.nvmlLibrary(), s.nodeName());
  }
}

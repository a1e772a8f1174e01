package io.gpuoperator.node.toolkit;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.Values;
import io.gpuoperator.node.cdi.CdiKind;
import io.gpuoperator.node.cdi.CdiSpecFiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The toolkit's settings after precedence (flag, then environment variable, then default, resolved
 * by {@link Settings} like every agent's, so a bad value names its source in one style). The
 * environment is the original toolkit container's ({@code nvidia-ctk-installer}), so the original's
 * DaemonSet env works unchanged; each setting names its variables once, in {@link Setting}.
 *
 * @param runtime containerd or crio
 * @param config the runtime's main config as this process sees it
 * @param dropIn the drop-in as this process sees it, null for none (edit the main file)
 * @param dropInHostPath the drop-in's path on the host (what containerd imports)
 * @param socket the runtime's socket as this process sees it
 * @param restartMode how the runtime is restarted
 * @param configSources where the current config is read from, in order: command, file
 * @param runtimeName the name of the main runtime (the RuntimeClass handler)
 * @param setAsDefault make it the runtime's default
 * @param toolkitRoot where the runtime binaries live on the host ({@code <root>/toolkit})
 * @param cdiEnabled turn on CDI in the runtime and write the CDI spec
 * @param cdiOutputDir where the CDI spec is written
 * @param cdiKind the spec's kind
 * @param hostRoot the host's root as this process sees it
 * @param pidFile the pid file that keeps two toolkits apart
 * @param driverRoot the driver root on the host
 * @param driverRootCtrPath where this process reads the driver root
 * @param devRoot the dev root on the host, null to derive it
 * @param devRootCtrPath where this process reads the dev root, null for the same
 * @param noDaemon configure and exit instead of waiting to revert
 * @param noRuntimeConfig leave the runtime's config alone (CDI only)
 * @param containerd the containerd executable for {@code config dump}
 * @param backend nvml or simulated (CDI spec)
 * @param nodeProfile simulated node profile
 * @param nvmlLibrary libnvidia-ml.so.1 to load
 * @param nodeName this node
 */
public record ToolkitSettings(
    String runtime,
    String config,
    String dropIn,
    String dropInHostPath,
    String socket,
    RuntimeRestarter.Mode restartMode,
    List<String> configSources,
    String runtimeName,
    boolean setAsDefault,
    String toolkitRoot,
    boolean cdiEnabled,
    String cdiOutputDir,
    String cdiKind,
    String hostRoot,
    String pidFile,
    String driverRoot,
    String driverRootCtrPath,
    String devRoot,
    String devRootCtrPath,
    boolean noDaemon,
    boolean noRuntimeConfig,
    String containerd,
    String backend,
    String nodeProfile,
    String nvmlLibrary,
    String nodeName) {

  /** The placeholder of a true/false flag. */
  static final String BOOL = "BOOL";

  /**
   * A setting: its flag, its placeholder and help (the flag's {@code --help}, where {@link
   * ToolkitOptions} declares it), and its environment variables (first set wins). Defaults are
   * {@link #resolve}'s; the help says them where they depend on the runtime.
   */
  public enum Setting {
    RUNTIME("--runtime", "containerd|crio", "containerd or crio (default containerd)", "RUNTIME"),
    CONFIG(
        "--config",
        "FILE",
        "The runtime's main config; CONTAINERD_CONFIG or CRIO_CONFIG comes first (default"
            + " /etc/containerd/config.toml, /etc/crio/crio.conf)",
        "RUNTIME_CONFIG"),
    DROP_IN(
        "--drop-in-config",
        "FILE",
        "Drop-in file; empty edits the main file (default /etc/containerd/conf.d/99-nvidia.toml,"
            + " /etc/crio/crio.conf.d/99-nvidia.conf)",
        "RUNTIME_DROP_IN_CONFIG"),
    DROP_IN_HOST_PATH(
        "--drop-in-config-host-path",
        "FILE",
        "The drop-in's path on the host, which containerd imports (default: --drop-in-config)",
        "RUNTIME_DROP_IN_CONFIG_HOST_PATH"),
    SOCKET(
        "--socket",
        "FILE",
        "The runtime's socket; CONTAINERD_SOCKET or CRIO_SOCKET comes first (default"
            + " /run/containerd/containerd.sock)",
        "RUNTIME_SOCKET"),
    RESTART_MODE(
        "--restart-mode",
        "signal|systemd|none",
        "signal, systemd or none (default signal for containerd, systemd for CRI-O)",
        "RUNTIME_RESTART_MODE"),
    CONFIG_SOURCE(
        "--config-source",
        "SOURCES",
        "Where the current config is read: command (containerd config dump) and/or file"
            + " (default command,file)",
        "RUNTIME_CONFIG_SOURCE"),
    RUNTIME_NAME(
        "--nvidia-runtime-name",
        "NAME",
        "Name of the main runtime (default nvidia)",
        "CONTAINERD_RUNTIME_CLASS",
        "NVIDIA_RUNTIME_NAME"),
    SET_AS_DEFAULT(
        "--set-as-default",
        BOOL,
        "Make it the default runtime (default true)",
        "NVIDIA_RUNTIME_SET_AS_DEFAULT"),
    TOOLKIT_ROOT(
        "--toolkit-root",
        "DIR",
        "Host directory whose toolkit/ holds the runtime binaries (default /usr/local/nvidia)",
        "ROOT",
        "TOOLKIT_INSTALL_DIR"),
    CDI_ENABLED(
        "--cdi-enabled", BOOL, "Turn on CDI and write the CDI spec (default false)", "CDI_ENABLED"),
    CDI_OUTPUT_DIR(
        "--cdi-output-dir",
        "DIR",
        "Where the CDI spec goes (default /var/run/cdi)",
        "CDI_OUTPUT_DIR"),
    CDI_KIND(
        "--cdi-kind",
        "CDI_KIND",
        "The spec's kind (default management.nvidia.com/gpu)",
        "CDI_KIND"),
    HOST_ROOT("--host-root", "DIR", "The host's root as seen here (default /)", "HOST_ROOT_MOUNT"),
    PID_FILE(
        "--pid-file",
        "FILE",
        "Pid file (default /run/nvidia/toolkit/toolkit.pid)",
        "TOOLKIT_PID_FILE"),
    DRIVER_ROOT(
        "--driver-root",
        "DIR",
        "Driver root on the host (default /run/nvidia/driver)",
        "NVIDIA_DRIVER_ROOT",
        "DRIVER_ROOT"),
    DRIVER_ROOT_CTR_PATH(
        "--driver-root-ctr-path",
        "DIR",
        "Where the driver root is seen here (default: --driver-root)",
        "DRIVER_ROOT_CTR_PATH"),
    DEV_ROOT("--dev-root", "DIR", "Root of /dev on the host", "NVIDIA_DEV_ROOT", "DEV_ROOT"),
    DEV_ROOT_CTR_PATH(
        "--dev-root-ctr-path", "DIR", "Where the dev root is seen here", "DEV_ROOT_CTR_PATH"),
    /** {@code toolkit} only: its subcommands always exit. */
    NO_DAEMON("--no-daemon", BOOL, "Configure and exit instead of waiting to revert", "NO_DAEMON"),
    NO_RUNTIME_CONFIG(
        "--no-runtime-config",
        BOOL,
        "Leave the runtime's config alone; CDI spec only",
        "NO_RUNTIME_CONFIG"),
    CRIO_CONFIG_MODE(
        "--crio-config-mode",
        "config|hook",
        "config (runtime handlers; the only mode here) or hook",
        "CRIO_CONFIG_MODE"),
    /** A variable only: NVIDIA's NRI plugin is not built in, so it is refused when on. */
    NRI_PLUGIN("--enable-nri-plugin", null, null, "ENABLE_NRI_PLUGIN"),
    CONTAINERD_PATH(
        "--containerd-path",
        "FILE",
        "containerd executable for config dump (default containerd)",
        "CONTAINERD_PATH"),
    BACKEND("--backend", "nvml|simulated", "nvml or simulated, for the CDI spec", "GPU_BACKEND"),
    NODE_PROFILE("--node-profile", "NAME|FILE", "Simulated node profile", "GPU_NODE_PROFILE"),
    NVML_LIBRARY("--nvml-library", "FILE", "libnvidia-ml.so.1 to load", "NVML_LIBRARY"),
    NODE_NAME("--node-name", "NAME", "This node", "NODE_NAME");

    final String flag;
    final String label;
    final String help;
    final List<String> env;

    Setting(String flag, String label, String help, String... env) {
      this.flag = flag;
      this.label = label;
      this.help = help;
      this.env = List.of(env);
    }

    /** True for a true/false flag, which may stand alone ({@code --cdi-enabled}). */
    boolean bool() {
      return BOOL.equals(label);
    }

    /** True when the setting is a flag too (else a variable only). */
    boolean isFlag() {
      return help != null;
    }

    /** The flag, e.g. {@code --runtime}. */
    public String flag() {
      return flag;
    }

    /** The environment variables, first set wins. */
    public List<String> env() {
      return env;
    }

    /**
     * Every variable the toolkit reads, as text settings (its values are checked together by {@link
     * ToolkitSettings#resolve}): each setting's, and the runtime's own config and socket variables.
     */
    public static List<io.gpuoperator.config.Setting<?>> contract() {
      List<io.gpuoperator.config.Setting<?>> out = new ArrayList<>();
      for (Setting s : values()) {
        out.add(io.gpuoperator.config.Setting.string(s.flag).env(s.env.toArray(String[]::new)));
      }
      for (RuntimeDefaults d : RUNTIMES.values()) {
        out.add(io.gpuoperator.config.Setting.string(null).env(d.configEnv()));
        out.add(io.gpuoperator.config.Setting.string(null).env(d.socketEnv()));
      }
      return out;
    }
  }

  /** Per-runtime defaults: config, drop-in, socket, restart mode, config and socket variables. */
  record RuntimeDefaults(
      String config,
      String dropIn,
      String socket,
      String restartMode,
      String configEnv,
      String socketEnv) {}

  static final Map<String, RuntimeDefaults> RUNTIMES =
      Map.of(
          "containerd",
          new RuntimeDefaults(
              "/etc/containerd/config.toml",
              "/etc/containerd/conf.d/99-nvidia.toml",
              "/run/containerd/containerd.sock",
              "signal",
              "CONTAINERD_CONFIG",
              "CONTAINERD_SOCKET"),
          "crio",
          new RuntimeDefaults(
              "/etc/crio/crio.conf",
              "/etc/crio/crio.conf.d/99-nvidia.conf",
              "/var/run/crio/crio.sock",
              "systemd",
              "CRIO_CONFIG",
              "CRIO_SOCKET"));

  /** Resolves; an IllegalArgumentException names the setting, where its value came from and why. */
  public static ToolkitSettings resolve(Map<Setting, String> flags, Map<String, String> env) {
    Resolver r = new Resolver(flags, env);
    String runtime = r.get(Setting.RUNTIME, "containerd").toLowerCase(Locale.ROOT);
    if (runtime.equals("cri-o")) {
      runtime = "crio";
    }
    if (runtime.equals("docker")) {
      throw new IllegalArgumentException(
          r.source(Setting.RUNTIME)
              + ": docker is not configured by this toolkit (it configures containerd and CRI-O);"
              + " run NVIDIA's toolkit image for docker nodes");
    }
    RuntimeDefaults d = RUNTIMES.get(runtime);
    if (d == null) {
      throw new IllegalArgumentException(
          r.source(Setting.RUNTIME)
              + ": unknown runtime "
              + Values.quote(runtime)
              + "; expected containerd or crio");
    }
    if (r.bool(Setting.NRI_PLUGIN, "false")) {
      throw new IllegalArgumentException(
          r.source(Setting.NRI_PLUGIN)
              + ": the NRI plugin is not built into this toolkit; set cdi.nriPluginEnabled=false"
              + " or run NVIDIA's toolkit image");
    }
    String crioMode = r.get(Setting.CRIO_CONFIG_MODE, "config");
    if (runtime.equals("crio") && crioMode.equals("hook")) {
      throw new IllegalArgumentException(
          r.source(Setting.CRIO_CONFIG_MODE)
              + ": hook mode installs NVIDIA's OCI prestart hook, which this image does not ship;"
              + " enable CDI (cdi.enabled=true) so that CRI-O gets runtime handlers instead");
    }
    if (!crioMode.equals("config") && !crioMode.equals("hook")) {
      throw new IllegalArgumentException(
          r.source(Setting.CRIO_CONFIG_MODE)
              + ": expected config or hook, got "
              + Values.quote(crioMode));
    }
    String config = r.getWithExtraEnv(Setting.CONFIG, d.configEnv(), d.config());
    String dropIn = r.get(Setting.DROP_IN, d.dropIn());
    dropIn = dropIn.isBlank() ? null : dropIn;
    String dropInHost = r.get(Setting.DROP_IN_HOST_PATH, dropIn == null ? "" : dropIn);
    String socket = r.getWithExtraEnv(Setting.SOCKET, d.socketEnv(), d.socket());
    RuntimeRestarter.Mode mode;
    try {
      mode = RuntimeRestarter.Mode.parse(r.get(Setting.RESTART_MODE, d.restartMode()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(r.source(Setting.RESTART_MODE) + ": " + e.getMessage());
    }
    List<String> sources = new ArrayList<>();
    for (String s : r.get(Setting.CONFIG_SOURCE, "command,file").split(",")) {
      String src = s.trim();
      String kind = src.contains("=") ? src.substring(0, src.indexOf('=')) : src;
      if (!kind.equals("command") && !kind.equals("file")) {
        throw new IllegalArgumentException(
            r.source(Setting.CONFIG_SOURCE)
                + ": unknown config source "
                + Values.quote(src)
                + "; expected command and/or file");
      }
      sources.add(kind);
    }
    String kind = r.get(Setting.CDI_KIND, CdiKind.MANAGEMENT);
    try {
      CdiKind.check(kind);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(r.source(Setting.CDI_KIND) + ": " + e.getMessage());
    }
    String driverRoot = r.get(Setting.DRIVER_ROOT, "/run/nvidia/driver");
    String backend = r.get(Setting.BACKEND, "nvml");
    if (!backend.equals("nvml") && !backend.equals("simulated")) {
      throw new IllegalArgumentException(
          r.source(Setting.BACKEND) + ": expected nvml or simulated, got " + Values.quote(backend));
    }
    return new ToolkitSettings(
        runtime,
        config,
        dropIn,
        dropInHost,
        socket,
        mode,
        List.copyOf(new LinkedHashSet<>(sources)),
        r.get(Setting.RUNTIME_NAME, "nvidia"),
        r.bool(Setting.SET_AS_DEFAULT, "true"),
        r.get(Setting.TOOLKIT_ROOT, "/usr/local/nvidia"),
        r.bool(Setting.CDI_ENABLED, "false"),
        r.get(Setting.CDI_OUTPUT_DIR, CdiSpecFiles.DEFAULT_DIR),
        kind,
        r.get(Setting.HOST_ROOT, "/"),
        r.get(Setting.PID_FILE, "/run/nvidia/toolkit/toolkit.pid"),
        driverRoot,
        r.get(Setting.DRIVER_ROOT_CTR_PATH, driverRoot),
        r.get(Setting.DEV_ROOT, null),
        r.get(Setting.DEV_ROOT_CTR_PATH, null),
        r.bool(Setting.NO_DAEMON, "false"),
        r.bool(Setting.NO_RUNTIME_CONFIG, "false"),
        r.get(Setting.CONTAINERD_PATH, "containerd"),
        backend,
        r.get(Setting.NODE_PROFILE, null),
        r.get(Setting.NVML_LIBRARY, null),
        r.get(Setting.NODE_NAME, null));
  }

  /**
   * The runtimes to register: name to binary path on the host.
   *
   * @param nvidiaInstalled whether NVIDIA's runtime binaries are in {@code <toolkit root>/toolkit}
   *     (else the runtimes run the base runtime's binary, see {@link RuntimeSettings})
   */
  public RuntimeSettings runtimeSettings(boolean nvidiaInstalled) {
    List<String> dirs = new ArrayList<>(List.of(CdiSpecFiles.STATIC_DIR, CdiSpecFiles.DEFAULT_DIR));
    if (!dirs.contains(cdiOutputDir)) {
      dirs.add(cdiOutputDir);
    }
    return new RuntimeSettings(
        RuntimeSettings.nvidiaRuntimes(runtimeName, toolkitDir(), nvidiaInstalled),
        runtimeName,
        setAsDefault,
        cdiEnabled,
        dirs,
        dropInHostPath == null || dropInHostPath.isBlank() ? dropIn : dropInHostPath);
  }

  /** Where NVIDIA's runtime binaries are on the host: {@code <toolkit root>/toolkit}. */
  public String toolkitDir() {
    return toolkitRoot + "/toolkit";
  }

  /**
   * The toolkit's settings through the one resolver ({@link Settings}: flag, then variables, then
   * default, remembering where each value came from), with the original's runtime-specific
   * variables ({@code CONTAINERD_CONFIG}, {@code CRIO_SOCKET} ...) before a setting's own.
   */
  private static final class Resolver {
    private final Settings settings;

    Resolver(Map<Setting, String> flags, Map<String, String> env) {
      Map<String, String> byFlag = new HashMap<>();
      flags.forEach((s, v) -> byFlag.put(s.flag, v));
      this.settings = Settings.of(byFlag, env, null);
    }

    private static io.gpuoperator.config.Setting<String> declared(Setting s, String extra) {
      List<String> names = new ArrayList<>();
      if (extra != null) {
        names.add(extra);
      }
      names.addAll(s.env);
      return io.gpuoperator.config.Setting.string(s.flag).env(names.toArray(new String[0]));
    }

    String get(Setting s, String dflt) {
      return getWithExtraEnv(s, null, dflt);
    }

    /** With a runtime-specific variable that comes before the setting's own. */
    String getWithExtraEnv(Setting s, String extra, String dflt) {
      String v = settings.get(declared(s, extra));
      return v == null ? dflt : v.strip();
    }

    boolean bool(Setting s, String dflt) {
      var setting =
          io.gpuoperator.config.Setting.bool(s.flag)
              .env(s.env.toArray(new String[0]))
              .orElse(Parse.bool(dflt), dflt);
      return settings.get(setting);
    }

    /** Where the setting's value came from: its flag, its variable, or its flag for the default. */
    String source(Setting s) {
      Settings.Resolved<String> r = settings.resolve(declared(s, null));
      return r.given() ? r.origin() : s.flag;
    }
  }
}

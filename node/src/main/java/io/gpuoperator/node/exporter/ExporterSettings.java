package io.gpuoperator.node.exporter;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.Values;
import io.gpuoperator.node.agent.NodeAgentOptions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The exporter's settings, declared once below with the DCGM exporter's flags and environment
 * variables (so its DaemonSets work unchanged) and resolved by {@link Settings}: flag, then
 * variable, then default, every bad value named by its source in one style.
 *
 * @param collectors the counters CSV, or null for the built-in list
 * @param address where to listen
 * @param interval the collection interval (at least 1 s)
 * @param kubernetes whether to attribute devices to pods through pod-resources
 * @param gpuIdType {@code uid} or {@code device-name} (both ID forms are recognised either way)
 * @param devices which GPUs and GPU instances to export
 * @param podResourcesSocket the kubelet's pod-resources socket
 * @param resourceNames further resource names to attribute
 * @param hostname the {@code Hostname} label, null with {@code --no-hostname}
 * @param notes settings accepted but without effect here, one sentence each, logged at start
 */
public record ExporterSettings(
    Path collectors,
    InetSocketAddress address,
    Duration interval,
    boolean kubernetes,
    String gpuIdType,
    DeviceSelection devices,
    Path podResourcesSocket,
    Set<String> resourceNames,
    String hostname,
    List<String> notes) {

  public static final String ENV_COLLECTORS = "DCGM_EXPORTER_COLLECTORS";
  public static final String ENV_LISTEN = "DCGM_EXPORTER_LISTEN";
  public static final String ENV_INTERVAL = "DCGM_EXPORTER_INTERVAL";
  public static final String ENV_KUBERNETES = "DCGM_EXPORTER_KUBERNETES";
  public static final String ENV_GPU_ID_TYPE = "DCGM_EXPORTER_KUBERNETES_GPU_ID_TYPE";
  public static final String ENV_DEVICES = "DCGM_EXPORTER_DEVICES_STR";
  public static final String ENV_REMOTE_HOSTENGINE = "DCGM_REMOTE_HOSTENGINE_INFO";
  public static final String ENV_POD_LABELS = "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_LABELS";
  public static final String ENV_POD_UID = "DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID";
  public static final String ENV_POD_LABEL_ALLOWLIST =
      "DCGM_EXPORTER_KUBERNETES_POD_LABEL_ALLOWLIST_REGEX";
  public static final String ENV_HPC_JOB_MAPPING_DIR = "DCGM_HPC_JOB_MAPPING_DIR";
  public static final String ENV_RESOURCE_NAMES = "NVIDIA_RESOURCE_NAMES";
  public static final String ENV_NODE_NAME = "NODE_NAME";

  /** This project's: the pod-resources socket (the DCGM exporter has only the flag). */
  public static final String ENV_POD_RESOURCES_SOCKET = "DCGM_EXPORTER_POD_RESOURCES_SOCKET";

  public static final long MIN_INTERVAL_MS = 1_000;

  public static final Setting<Path> COLLECTORS =
      Setting.of("--collectors", Parse::path)
          .alias("-f")
          .env(ENV_COLLECTORS)
          .label("FILE")
          .help("Counters CSV in the DCGM exporter's format.")
          .orElseDescribed("the built-in list");
  public static final Setting<InetSocketAddress> ADDRESS =
      Setting.of("--address", ExporterSettings::listenAddress)
          .alias("-a")
          .env(ENV_LISTEN)
          .label("[HOST]:PORT")
          .help("Where to serve /metrics; an empty host listens on every address.")
          .orElse(new InetSocketAddress(9400), ":9400");
  public static final Setting<Duration> INTERVAL =
      Setting.of("--collect-interval", ExporterSettings::intervalMillis)
          .alias("-c")
          .env(ENV_INTERVAL)
          .label("MS")
          .help("Collection interval in milliseconds, at least 1000.")
          .orElse(Duration.ofMillis(30_000), "30000");
  public static final Setting<Boolean> KUBERNETES =
      Setting.bool("--kubernetes")
          .alias("-k")
          .env(ENV_KUBERNETES)
          .help("Label series with the pod, namespace and container holding the device.")
          .orElse(false);
  public static final Setting<String> GPU_ID_TYPE =
      Setting.of(
              "--kubernetes-gpu-id-type", Parse.oneOf("GPU ID type", List.of("uid", "device-name")))
          .env(ENV_GPU_ID_TYPE)
          .label("uid|device-name")
          .help("How pod-resources names GPUs (both forms are recognised).")
          .orElse("uid");
  public static final Setting<DeviceSelection> DEVICES =
      Setting.of("--devices", DeviceSelection::parse)
          .alias("-d")
          .env(ENV_DEVICES)
          .label("f|g[:IDS]|i[:IDS]")
          .help("f: GPU instances of MIG GPUs, other GPUs whole; g or i: GPUs or instances (ids).")
          .orElse(DeviceSelection.parse("f"), "f");
  public static final Setting<String> REMOTE_HOSTENGINE =
      Setting.string("--remote-hostengine-info")
          .alias("-r")
          .env(ENV_REMOTE_HOSTENGINE)
          .label("HOST:PORT")
          .help("Accepted for compatibility and ignored: there is no DCGM host engine.");
  public static final Setting<Path> POD_RESOURCES_SOCKET =
      Setting.of("--pod-resources-kubelet-socket", Parse::path)
          .env(ENV_POD_RESOURCES_SOCKET)
          .label("FILE")
          .help("The kubelet's pod-resources socket.")
          .orElse(Path.of(PodResourcesClient.DEFAULT_SOCKET), PodResourcesClient.DEFAULT_SOCKET);
  public static final Setting<Boolean> NO_HOSTNAME =
      Setting.bool("--no-hostname").help("Leave out the Hostname label.").orElse(false);
  public static final Setting<Boolean> POD_LABELS =
      Setting.bool(null).env(ENV_POD_LABELS).orElse(false);
  public static final Setting<Boolean> POD_UID = Setting.bool(null).env(ENV_POD_UID).orElse(false);
  public static final Setting<String> POD_LABEL_ALLOWLIST =
      Setting.string(null).env(ENV_POD_LABEL_ALLOWLIST);
  public static final Setting<String> HPC_JOB_MAPPING_DIR =
      Setting.string(null).env(ENV_HPC_JOB_MAPPING_DIR);
  public static final Setting<Set<String>> RESOURCE_NAMES =
      Setting.of(null, ExporterSettings::names).env(ENV_RESOURCE_NAMES).orElse(Set.of(), "");

  /** The exporter's own settings, in help order (the node and backend ones are shared). */
  public static final List<Setting<?>> ALL =
      List.of(
          COLLECTORS,
          ADDRESS,
          INTERVAL,
          KUBERNETES,
          GPU_ID_TYPE,
          DEVICES,
          REMOTE_HOSTENGINE,
          POD_RESOURCES_SOCKET,
          NO_HOSTNAME,
          POD_LABELS,
          POD_UID,
          POD_LABEL_ALLOWLIST,
          HPC_JOB_MAPPING_DIR,
          RESOURCE_NAMES);

  /** Resolves every setting; a bad value is a ConfigException naming its source. */
  public static ExporterSettings resolve(Settings s, String localHostname) {
    List<String> notes = new ArrayList<>();
    String remote = s.get(REMOTE_HOSTENGINE);
    if (remote != null) {
      notes.add(
          "remote host engine "
              + Values.quote(remote)
              + " ignored: this exporter reads the GPUs through NVML, without DCGM's host engine");
    }
    if (s.get(POD_LABEL_ALLOWLIST) != null) {
      notes.add(
          POD_LABEL_ALLOWLIST.name()
              + " ignored: this exporter does not label metrics with pod labels (see "
              + POD_LABELS.name()
              + ")");
    }
    if (s.get(HPC_JOB_MAPPING_DIR) != null) {
      notes.add(
          HPC_JOB_MAPPING_DIR.name()
              + " ignored: this exporter does not read HPC job mapping files; metrics carry no"
              + " hpc_job label");
    }
    for (Setting<Boolean> v : List.of(POD_LABELS, POD_UID)) {
      if (s.get(v)) {
        notes.add(
            v.name()
                + " ignored: pod labels and UIDs need the API server, and this exporter attributes"
                + " pods from the kubelet's pod-resources API only");
      }
    }
    String node = NodeAgentOptions.nodeName(s);
    String hostname = s.get(NO_HOSTNAME) ? null : node != null ? node : localHostname;
    return new ExporterSettings(
        s.get(COLLECTORS),
        s.get(ADDRESS),
        s.get(INTERVAL),
        s.get(KUBERNETES),
        s.get(GPU_ID_TYPE),
        s.get(DEVICES),
        s.get(POD_RESOURCES_SOCKET),
        s.get(RESOURCE_NAMES),
        hostname,
        List.copyOf(notes));
  }

  /** Only an environment (the simulator's in-process exporter, tests). */
  public static ExporterSettings fromEnv(Map<String, String> env, String localHostname) {
    return resolve(Settings.ofEnv(env), localHostname);
  }

  /** {@code [host]:port}, as Go's net.Listen takes it: an empty host listens everywhere. */
  static InetSocketAddress listenAddress(String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          Values.quote(value) + " is not a listen address; expected [host]:port, e.g. :9400");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Parse.port(true).apply(value.substring(colon + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the port of " + Values.quote(value) + ": " + e.getMessage(), e);
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  static Duration intervalMillis(String value) {
    long ms;
    try {
      ms = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          Values.quote(value) + " is not a number of milliseconds (e.g. 30000)");
    }
    if (ms < MIN_INTERVAL_MS || ms > Duration.ofDays(1).toMillis()) {
      throw new IllegalArgumentException(
          ms + " ms is outside the collection interval's range 1000-86400000 ms");
    }
    return Duration.ofMillis(ms);
  }

  private static Set<String> names(String value) {
    Set<String> out = new LinkedHashSet<>();
    for (String n : value.split(",")) {
      if (!n.isBlank()) {
        out.add(n.strip());
      }
    }
    return Set.copyOf(out);
  }
}

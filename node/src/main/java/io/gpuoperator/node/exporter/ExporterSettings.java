package io.gpuoperator.node.exporter;

import io.gpuoperator.node.config.ConfigException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The exporter's settings, resolved flag first, then environment variable (the DCGM exporter's
 * names, so its DaemonSets work unchanged), then default. Parsed from a map so tests pass one.
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
 * @param backend {@code nvml} or {@code simulated}
 * @param nodeProfile the simulated node profile (built-in name or file)
 * @param nvmlLibrary the NVML library to load, null for the loader's path
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
    String backend,
    String nodeProfile,
    String nvmlLibrary,
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
  public static final String ENV_RESOURCE_NAMES = "NVIDIA_RESOURCE_NAMES";
  public static final String ENV_NODE_NAME = "NODE_NAME";

  /** This project's: the pod-resources socket (the DCGM exporter has only the flag). */
  public static final String ENV_POD_RESOURCES_SOCKET = "DCGM_EXPORTER_POD_RESOURCES_SOCKET";

  public static final String ENV_BACKEND = "GPU_BACKEND";
  public static final String ENV_NODE_PROFILE = "GPU_NODE_PROFILE";
  public static final String ENV_NVML_LIBRARY = "NVML_LIBRARY";

  public static final String DEFAULT_LISTEN = ":9400";
  public static final long DEFAULT_INTERVAL_MS = 30_000;
  public static final long MIN_INTERVAL_MS = 1_000;

  /** Command-line values; null when not given. */
  public record Flags(
      String collectors,
      String address,
      String intervalMs,
      Boolean kubernetes,
      String gpuIdType,
      String devices,
      String remoteHostengine,
      String podResourcesSocket,
      Boolean noHostname,
      String nodeName,
      String backend,
      String nodeProfile,
      String nvmlLibrary) {

    /** No flags given. */
    public static Flags none() {
      return new Flags(
          null, null, null, null, null, null, null, null, null, null, null, null, null);
    }
  }

  /** Resolves every setting; a bad value is a {@link ConfigException} naming its source. */
  public static ExporterSettings resolve(Flags f, Map<String, String> env, String localHostname) {
    List<String> notes = new ArrayList<>();
    String collectors = pick(f.collectors(), env, ENV_COLLECTORS);
    String listen = pick(f.address(), env, ENV_LISTEN);
    InetSocketAddress address =
        address(
            f.address() != null ? "--address" : ENV_LISTEN,
            listen == null ? DEFAULT_LISTEN : listen);
    String intervalText = pick(f.intervalMs(), env, ENV_INTERVAL);
    Duration interval =
        interval(
            f.intervalMs() != null ? "--collect-interval" : ENV_INTERVAL,
            intervalText == null ? Long.toString(DEFAULT_INTERVAL_MS) : intervalText);
    boolean kubernetes =
        f.kubernetes() != null
            ? f.kubernetes()
            : bool(ENV_KUBERNETES, env.get(ENV_KUBERNETES), false);
    String idType = pick(f.gpuIdType(), env, ENV_GPU_ID_TYPE);
    idType = idType == null ? "uid" : idType.strip();
    if (!idType.equals("uid") && !idType.equals("device-name")) {
      throw new ConfigException(
          (f.gpuIdType() != null ? "--kubernetes-gpu-id-type" : ENV_GPU_ID_TYPE)
              + ": '"
              + idType
              + "' is not a GPU ID type; expected uid or device-name");
    }
    DeviceSelection devices =
        DeviceSelection.parse(
            f.devices() != null ? "--devices" : ENV_DEVICES, pick(f.devices(), env, ENV_DEVICES));
    String remote = pick(f.remoteHostengine(), env, ENV_REMOTE_HOSTENGINE);
    if (remote != null) {
      notes.add(
          "remote host engine "
              + remote
              + " ignored: this exporter reads the GPUs through NVML, without DCGM's host engine");
    }
    for (String v : List.of(ENV_POD_LABELS, ENV_POD_UID)) {
      if (bool(v, env.get(v), false)) {
        notes.add(
            v
                + " ignored: pod labels and UIDs need the API server, and this exporter attributes"
                + " pods from the kubelet's pod-resources API only");
      }
    }
    String socket = pick(f.podResourcesSocket(), env, ENV_POD_RESOURCES_SOCKET);
    Set<String> resources = new LinkedHashSet<>();
    String names = env.get(ENV_RESOURCE_NAMES);
    if (names != null) {
      for (String n : names.split(",")) {
        if (!n.isBlank()) {
          resources.add(n.strip());
        }
      }
    }
    boolean noHostname = Boolean.TRUE.equals(f.noHostname());
    String node = pick(f.nodeName(), env, ENV_NODE_NAME);
    String hostname = noHostname ? null : node != null ? node : localHostname;
    String backend = pick(f.backend(), env, ENV_BACKEND);
    backend = backend == null ? "nvml" : backend.strip().toLowerCase(Locale.ROOT);
    if (!backend.equals("nvml") && !backend.equals("simulated")) {
      throw new ConfigException(
          (f.backend() != null ? "--backend" : ENV_BACKEND)
              + ": unknown backend '"
              + backend
              + "', expected nvml or simulated");
    }
    String profile = pick(f.nodeProfile(), env, ENV_NODE_PROFILE);
    if (backend.equals("simulated") && profile == null) {
      throw new ConfigException(
          "--backend simulated needs --node-profile (or " + ENV_NODE_PROFILE + ")");
    }
    return new ExporterSettings(
        collectors == null ? null : Path.of(collectors),
        address,
        interval,
        kubernetes,
        idType,
        devices,
        Path.of(socket == null ? PodResourcesClient.DEFAULT_SOCKET : socket),
        Set.copyOf(resources),
        hostname,
        backend,
        profile,
        pick(f.nvmlLibrary(), env, ENV_NVML_LIBRARY),
        List.copyOf(notes));
  }

  private static String pick(String flag, Map<String, String> env, String name) {
    if (flag != null && !flag.isBlank()) {
      return flag.strip();
    }
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** {@code [host]:port}, as Go's net.Listen takes it: an empty host listens everywhere. */
  static InetSocketAddress address(String setting, String value) {
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      throw new ConfigException(
          setting + ": '" + value + "' is not a listen address; expected [host]:port, e.g. :9400");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new ConfigException(
          setting + ": '" + value + "' has no valid port (0-65535); expected [host]:port");
    }
    return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
  }

  static Duration interval(String setting, String value) {
    long ms;
    try {
      ms = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw new ConfigException(
          setting + ": '" + value + "' is not a number of milliseconds (e.g. 30000)");
    }
    if (ms < MIN_INTERVAL_MS) {
      throw new ConfigException(
          setting + ": " + ms + " ms is below the minimum collection interval of 1000 ms");
    }
    return Duration.ofMillis(ms);
  }

  private static boolean bool(String setting, String value, boolean dflt) {
    if (value == null || value.isBlank()) {
      return dflt;
    }
    return switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default ->
          throw new ConfigException(
              setting + ": '" + value + "' is not a boolean; expected true or false");
    };
  }
}

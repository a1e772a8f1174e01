package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.node.agent.AgentLane;
import io.gpuoperator.node.fault.GpuFaultReporter;
import io.gpuoperator.node.files.ConfinedRoot;
import io.gpuoperator.node.files.DirectoryWatch;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.HealthMonitor;
import io.gpuoperator.node.gpu.XidPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device plugin of one node: one {@link ResourceServer} per advertised resource, the health
 * monitor feeding them, and a supervisor that re-registers every resource when the kubelet's socket
 * is re-created (a kubelet restart), restarts a resource whose server died or whose socket vanished
 * (that resource only), and retries registration while the kubelet is absent.
 */
public final class DevicePluginAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginAgent.class);

  /** As the original: more crashes than this within an hour and the resource is given up. */
  private static final int MAX_CRASHES_PER_HOUR = 5;

  private final GpuBackend backend;
  private final Path kubeletSocket;
  private final Path migMinorsFile;
  private final Duration superviseInterval;
  private final HealthMonitor health;
  private final Map<String, ResourceServer> servers = new LinkedHashMap<>();
  private final Map<String, Deque<Long>> crashes = new HashMap<>();
  private final AgentLane supervisor = new AgentLane("device-plugin-supervisor");
  private DevicePluginSettings settings;
  private GpuInventory inventory;
  private LinkScores links;
  private volatile Object kubeletKey;

  /** The servers as of the last change, for the unlocked check. */
  private volatile List<ResourceServer> serving = List.of();

  private AutoCloseable socketWatch;
  private volatile boolean closed;
  private Path cdiSpecDir;
  private GpuFaultReporter faults;

  /**
   * @param kubeletSocket the kubelet's registration socket; plugin sockets go next to it
   * @param migMinorsFile {@code /proc/driver/nvidia-caps/mig-minors} (may be absent)
   * @param xidPolicy which XIDs count
   * @param recovery quiet period after which an unhealthy device is healthy again (0: never)
   * @param superviseInterval how often sockets and registration are checked
   */
  public DevicePluginAgent(
      GpuBackend backend,
      DevicePluginSettings settings,
      Path kubeletSocket,
      Path migMinorsFile,
      XidPolicy xidPolicy,
      Duration recovery,
      Duration superviseInterval) {
    this.backend = backend;
    this.settings = settings;
    this.kubeletSocket = kubeletSocket.toAbsolutePath();
    this.migMinorsFile = migMinorsFile;
    this.superviseInterval = superviseInterval;
    this.inventory = GpuInventory.read(backend, migMinorsFile);
    this.health =
        new HealthMonitor(
            backend,
            xidPolicy,
            recovery,
            inventory,
            superviseInterval.compareTo(Duration.ofSeconds(1)) < 0
                ? superviseInterval
                : Duration.ofSeconds(1),
            this::onHealth);
  }

  /**
   * Reports the GPU faults the health monitor sees as Node conditions; call before {@link
   * #start()}. Null (the default): no conditions.
   */
  public synchronized DevicePluginAgent withFaultReporter(GpuFaultReporter reporter) {
    this.faults = reporter;
    if (reporter != null) {
      health.observe(reporter);
    }
    return this;
  }

  /**
   * Writes the plugin's CDI spec into this directory (like {@code /var/run/cdi}) whenever a CDI
   * device-list strategy is in use; call before {@link #start()}. Null (the default): no spec.
   */
  public synchronized DevicePluginAgent withCdiSpecDir(Path dir) {
    this.cdiSpecDir = dir;
    return this;
  }

  /**
   * Starts every resource's server and registers it (when the kubelet is there; otherwise the
   * supervisor registers it once the kubelet appears).
   *
   * @throws IllegalArgumentException when the GPUs do not fit the settings (MIG single strategy)
   */
  public synchronized DevicePluginAgent start() throws IOException {
    Files.createDirectories(kubeletSocket.getParent());
    links = LinkScores.read(backend);
    List<ResourceSet> resources = DeviceResourcesModel.build(inventory, settings);
    if (resources.isEmpty()) {
      LOG.warn("no devices to advertise; waiting (as the original: 'Waiting indefinitely')");
    }
    // Registration below covers the kubelet already there; the supervisor handles any later one.
    kubeletKey = SocketFiles.identity(kubeletSocket);
    writeCdiSpec(resources, settings);
    for (ResourceSet r : resources) {
      startServer(
          new ResourceServer(r, settings, kubeletSocket, links, health.unhealthy())
              .onHangUp(this::wake));
    }
    health.start();
    if (faults != null) {
      faults.start();
    }
    startWatch();
    long period = superviseInterval.toMillis();
    // The cheap check batched with every plugin's of the JVM; a pass only when it finds work.
    supervisor.scheduleBatched(this::check, period, TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Applies new settings (a new config file or a new {@code nvidia.com/device-plugin.config}
   * label): re-reads the GPUs and restarts only the resources that changed; unchanged ones keep
   * serving, and the kubelet keeps what it already allocated.
   */
  public synchronized void reload(DevicePluginSettings next) throws IOException {
    GpuInventory inv = GpuInventory.read(backend, migMinorsFile);
    List<ResourceSet> resources = DeviceResourcesModel.build(inv, next);
    writeCdiSpec(resources, next);
    settings = next;
    inventory = inv;
    health.inventory(inv);
    Map<String, ResourceSet> wanted = new LinkedHashMap<>();
    resources.forEach(r -> wanted.put(r.name(), r));
    for (String name : List.copyOf(servers.keySet())) {
      ResourceServer s = servers.get(name);
      ResourceSet w = wanted.get(name);
      if (w == null || !w.equals(s.resource()) || !next.equals(s.settings())) {
        LOG.info("reload: stopping resource {}", name);
        s.stop();
        servers.remove(name);
        serving = List.copyOf(servers.values());
      }
    }
    for (ResourceSet r : resources) {
      if (!servers.containsKey(r.name())) {
        LOG.info("reload: starting resource {}", r.name());
        startServer(
            new ResourceServer(r, next, kubeletSocket, links, health.unhealthy())
                .onHangUp(this::wake));
      }
    }
  }

  private void writeCdiSpec(List<ResourceSet> resources, DevicePluginSettings s)
      throws IOException {
    if (cdiSpecDir == null
        || s.deviceListStrategies().stream().noneMatch(DeviceListStrategy::cdi)) {
      return;
    }
    var spec = CdiSpecModel.build(resources, s, p -> Files.exists(Path.of(p)));
    // This process sees the dev root where the host has it.
    String devRoot = s.devRoot() == null ? "/" : s.devRoot().toString();
    var root = new ConfinedRoot("dev root", devRoot, Path.of(devRoot));
    io.gpuoperator.node.cdi.CdiSpecConfinement.check(spec, root, root);
    Path file =
        io.gpuoperator.node.cdi.CdiSpecFiles.write(
            cdiSpecDir, spec, io.gpuoperator.node.cdi.CdiSpecFiles.Format.JSON);
    LOG.info("CDI spec written to {}", file);
  }

  /** Stops and starts every resource (new sockets, new registrations), as on SIGHUP. */
  public synchronized void restartAll() {
    for (String name : List.copyOf(servers.keySet())) {
      restart(name);
    }
  }

  /** The running servers by resource name. */
  public synchronized Map<String, ResourceServer> servers() {
    return Map.copyOf(servers);
  }

  /** The settings in effect. */
  public synchronized DevicePluginSettings settings() {
    return settings;
  }

  /** The UUIDs unhealthy now. */
  public Set<String> unhealthy() {
    return health.unhealthy();
  }

  /** Why a device is unhealthy, or null. */
  public String unhealthyReason(String uuid) {
    return health.reason(uuid);
  }

  private void startServer(ResourceServer s) throws IOException {
    s.start();
    servers.put(s.resource().name(), s);
    serving = List.copyOf(servers.values());
    tryRegister(s);
  }

  private void tryRegister(ResourceServer s) {
    if (!Files.exists(kubeletSocket)) {
      return;
    }
    try {
      s.register();
    } catch (RuntimeException e) {
      LOG.warn(
          "resource {}: registration with {} failed (retrying): {}",
          s.resource().name(),
          kubeletSocket,
          e.getMessage());
    }
  }

  private synchronized void restart(String name) {
    ResourceServer old = servers.get(name);
    if (old == null) {
      return;
    }
    old.stop();
    ResourceServer fresh =
        new ResourceServer(old.resource(), old.settings(), kubeletSocket, links, health.unhealthy())
            .onHangUp(this::wake);
    try {
      startServer(fresh);
    } catch (IOException e) {
      // Kept, not serving: the supervisor tries again (and gives up after too many failures).
      servers.put(name, fresh);
      serving = List.copyOf(servers.values());
      LOG.error("resource {}: cannot restart its server (retrying): {}", name, e.getMessage());
    }
  }

  private void onHealth(Set<String> unhealthy) {
    List<ResourceServer> current;
    synchronized (this) {
      current = List.copyOf(servers.values());
    }
    current.forEach(s -> s.updateHealth(unhealthy));
  }

  /**
   * Whether a supervision pass has work: a new or vanished kubelet.sock, a server that died or lost
   * its socket, one not registered. Reads files only, without the agent's lock (held while a pass
   * registers, which may wait on the kubelet); hands the pass to the supervisor's lane.
   */
  private void check() {
    if (closed) {
      return;
    }
    boolean work = !java.util.Objects.equals(SocketFiles.identity(kubeletSocket), kubeletKey);
    for (ResourceServer s : serving) {
      work |= !s.alive() || (!s.registered() && !s.superseded());
    }
    if (work) {
      supervisor.execute(this::supervise);
    }
  }

  /** One supervision pass; runs on the supervisor's lane. */
  synchronized void supervise() {
    if (closed) {
      return;
    }
    try {
      // Inotify only wakes this pass early; the socket's identity decides.
      Object key = SocketFiles.identity(kubeletSocket);
      if (key == null) {
        kubeletKey = null;
      } else if (!key.equals(kubeletKey)) {
        // A new kubelet.sock (a restarted kubelet, or the first one): register everything anew,
        // but once: a server an earlier pass restarted and registered with this kubelet (while
        // it was replacing its socket) stays as it is.
        kubeletKey = key;
        crashes.clear();
        LOG.info("{} (re)created: re-registering every resource", kubeletSocket);
        for (String name : List.copyOf(servers.keySet())) {
          if (!servers.get(name).registeredWith(key)) {
            restart(name);
          }
        }
        return;
      }
      for (String name : List.copyOf(servers.keySet())) {
        ResourceServer s = servers.get(name);
        if (!s.alive()) {
          if (crashedTooOften(name)) {
            LOG.error(
                "resource {}: server died more than {} times within an hour; giving it up",
                name,
                MAX_CRASHES_PER_HOUR);
            s.stop();
            servers.remove(name);
            serving = List.copyOf(servers.values());
            continue;
          }
          LOG.warn("resource {}: server or socket {} gone; restarting it", name, s.socket());
          restart(name);
        } else if (!s.registered() && !s.superseded()) {
          tryRegister(s);
        }
      }
    } catch (RuntimeException e) {
      LOG.error("supervision pass failed: {}", e.toString());
    }
  }

  /** A supervision pass now: the kubelet hung up on a resource that should stay registered. */
  private void wake() {
    if (!closed) {
      supervisor.execute(this::supervise);
    }
  }

  private boolean crashedTooOften(String name) {
    long now = System.currentTimeMillis();
    Deque<Long> times = crashes.computeIfAbsent(name, n -> new ArrayDeque<>());
    times.addLast(now);
    while (!times.isEmpty() && now - times.peekFirst() > TimeUnit.HOURS.toMillis(1)) {
      times.removeFirst();
    }
    return times.size() > MAX_CRASHES_PER_HOUR;
  }

  /** Wakes the supervisor as soon as kubelet.sock is created, instead of at its next pass. */
  private void startWatch() {
    Path name = kubeletSocket.getFileName();
    try {
      socketWatch =
          DirectoryWatch.onCreate(
              kubeletSocket.getParent(),
              created -> {
                if (created.equals(name)) {
                  supervisor.execute(this::supervise);
                }
              });
    } catch (IOException e) {
      LOG.warn(
          "cannot watch {} ({}); relying on polling", kubeletSocket.getParent(), e.getMessage());
    }
  }

  @Override
  public void close() {
    closed = true;
    supervisor.close();
    health.close();
    if (faults != null) {
      faults.close();
    }
    if (socketWatch != null) {
      try {
        socketWatch.close();
      } catch (Exception e) {
        // closing anyway
      }
    }
    synchronized (this) {
      servers.values().forEach(ResourceServer::stop);
      servers.clear();
      serving = List.of();
    }
  }

  /** The default kubelet socket of a real node. */
  public static Path defaultKubeletSocket() {
    return Path.of(DevicePluginConstants.KUBELET_SOCKET);
  }
}

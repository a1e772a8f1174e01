package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.config.Settings;
import io.gpuoperator.kubelet.dra.DraServices;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.node.fault.GpuFaultReporter;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.HealthMonitor;
import io.gpuoperator.node.gpu.XidPolicy;
import io.grpc.BindableService;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gpu-operator dra-plugin}: the kubelet plugin of the {@code gpu.nvidia.com} DRA driver for
 * one node. It publishes the node's GPUs as a ResourceSlice pool (again whenever they change: a new
 * MIG layout, a GPU withdrawn after an XID error or back after the quiet period), serves the
 * DRAPlugin API (v1 and v1beta1) on its socket, and registers through the kubelet's plugin watcher
 * once everything is ready, so the kubelet never calls a plugin that cannot answer. With {@code
 * COMPUTE_DOMAINS} it also serves NVIDIA's ComputeDomain driver ({@link ComputeDomainPlugin}).
 *
 * <p>Failures: a failed publication is logged and retried at the next rescan; a server without
 * {@code resource.k8s.io} fails {@link #start()}; a server that drops shared counters turns
 * partitionable devices off (logged) and the GPUs are published statically.
 */
public final class DraPluginAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DraPluginAgent.class);
  private static final Duration RETRY = Duration.ofSeconds(2);

  private final GpuBackend backend;
  private final KubernetesClient client;
  private final DraPluginSettings settings;
  private final Map<String, String> env;
  private final TimeSlicing timeSlicing;
  private final PcieRoots roots;
  private final Path migMinors;
  private final Object wake = new Object();
  private DeviceState state;
  private SlicePublisher publisher;
  private PluginRegistrationService registration;
  private HealthMonitor health;
  private GpuFaultReporter faults;
  private ExecutorService handlers;
  private Server pluginServer;
  private Server registrationServer;
  private ComputeDomainPlugin computeDomains;
  private Thread loop;
  private volatile boolean running;
  private volatile boolean published;
  private boolean dirty = true;

  /**
   * @param env the environment, for the XID health settings the device plugin also reads ({@code
   *     DP_DISABLE_HEALTHCHECKS}, {@code DP_ENABLE_HEALTHCHECKS})
   * @param migMinors {@code /proc/driver/nvidia-caps/mig-minors} (may be absent)
   */
  public DraPluginAgent(
      GpuBackend backend,
      KubernetesClient client,
      DraPluginSettings settings,
      Map<String, String> env,
      TimeSlicing timeSlicing,
      PcieRoots roots,
      Path migMinors) {
    this.backend = backend;
    this.client = client;
    this.settings = settings;
    this.env = Map.copyOf(env);
    this.timeSlicing = timeSlicing;
    this.roots = roots;
    this.migMinors = migMinors;
  }

  /** Discovers the API, loads the checkpoint, publishes, serves, then registers. */
  public DraPluginAgent start() throws IOException {
    ResourceApiVersion version =
        ResourceApiVersion.discover(client)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the API server serves no resource.k8s.io version with structured"
                            + " parameters (v1, v1beta2 or v1beta1): Dynamic Resource Allocation"
                            + " needs Kubernetes 1.32 or newer"));
    boolean partitionable = partitionable(version);
    LOG.info(
        "node {}: DRA driver {} using {}, partitionable MIG devices {}",
        settings.nodeName(),
        DraNames.DRIVER,
        version.apiVersion(),
        partitionable ? "on" : "off");
    Files.createDirectories(settings.pluginDir());
    Files.createDirectories(settings.cdiRoot());
    state =
        new DeviceState(
            backend,
            settings.nodeName(),
            roots,
            partitionable,
            new CheckpointStore(settings.checkpointFile()),
            settings.cdiRoot(),
            settings.devRoot(),
            settings.mpsRoot(),
            () -> GpuInventory.readCapMinors(migMinors),
            timeSlicing);
    publisher = new SlicePublisher(client, version, settings.nodeName());
    running = true;
    publishQuietly();
    faults =
        GpuFaultReporter.fromSettings(
            backend, Settings.ofEnv(env), client, settings.nodeName(), settings.healthRecovery());
    health =
        new HealthMonitor(
                backend,
                XidPolicy.fromEnv(env),
                settings.healthRecovery(),
                GpuInventory.read(backend, migMinors),
                Duration.ofSeconds(1),
                unhealthy -> wake())
            .observe(faults)
            .start();
    if (faults != null) {
      faults.start();
    }
    loop = new Thread(this::run, "dra-plugin-" + settings.nodeName());
    loop.setDaemon(true);
    loop.start();
    AtomicInteger n = new AtomicInteger();
    handlers =
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "dra-plugin-grpc-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    DraPluginService service = new DraPluginService(state, ClaimReader.api(client, version));
    pluginServer =
        UnixSockets.serve(
            settings.pluginSocket(), handlers, v1(service), DraServices.v1beta1(service));
    if (settings.computeDomains()) {
      computeDomains = ComputeDomainPlugin.start(backend, client, version, settings, handlers);
    }
    registration = new PluginRegistrationService(DraNames.DRIVER, settings.pluginSocket());
    registrationServer = UnixSockets.serve(settings.registrationSocket(), registration);
    LOG.info(
        "node {}: DRA plugin serving on {}, registration on {}",
        settings.nodeName(),
        settings.pluginSocket(),
        settings.registrationSocket());
    return this;
  }

  /** True once the slices were published and the sockets serve. */
  public boolean ready() {
    return published
        && registrationServer != null
        && !registrationServer.isShutdown()
        && (computeDomains == null || computeDomains.ready());
  }

  /** The ComputeDomain driver's claims; null when ComputeDomains are not served. */
  public ComputeDomainState computeDomainState() {
    return computeDomains == null ? null : computeDomains.state();
  }

  /** True once the kubelet confirmed the registration. */
  public boolean registered() {
    return registration != null && registration.registered();
  }

  /** The node's DRA state (checkpoint, inventory). */
  public DeviceState state() {
    return state;
  }

  /** The slice publisher. */
  public SlicePublisher publisher() {
    return publisher;
  }

  /** Reads the GPUs again and publishes if anything changed, now. */
  public void rescan() {
    wake();
  }

  @Override
  public void close() {
    running = false;
    if (computeDomains != null) {
      computeDomains.close();
    }
    if (registrationServer != null) {
      registrationServer.shutdownNow();
      deleteQuietly(settings.registrationSocket());
    }
    if (pluginServer != null) {
      pluginServer.shutdownNow();
      deleteQuietly(settings.pluginSocket());
    }
    if (handlers != null) {
      handlers.shutdownNow();
    }
    if (health != null) {
      health.close();
    }
    if (faults != null) {
      faults.close();
    }
    if (loop != null) {
      loop.interrupt();
      try {
        loop.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean partitionable(ResourceApiVersion version) {
    return switch (settings.partitionable()) {
      case TRUE -> true;
      case FALSE -> false;
      case AUTO -> version == ResourceApiVersion.V1 && serverAtLeast(1, 36);
    };
  }

  private boolean serverAtLeast(int major, int minor) {
    try {
      var v = client.getKubernetesVersion();
      int ma = Integer.parseInt(v.getMajor().replaceAll("\\D", ""));
      int mi = Integer.parseInt(v.getMinor().replaceAll("\\D", ""));
      return ma > major || (ma == major && mi >= minor);
    } catch (RuntimeException e) {
      LOG.warn("cannot read the server version ({}): partitionable devices off", e.toString());
      return false;
    }
  }

  private void wake() {
    synchronized (wake) {
      dirty = true;
      wake.notifyAll();
    }
  }

  private void run() {
    while (running) {
      boolean ok;
      synchronized (wake) {
        dirty = false;
      }
      ok = publishQuietly();
      if (computeDomains != null) {
        ok &= computeDomains.publish();
      }
      synchronized (wake) {
        if (!dirty && running) {
          try {
            wake.wait((ok ? settings.rescanInterval() : RETRY).toMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  private boolean publishQuietly() {
    try {
      Set<String> unhealthy = health == null ? Set.of() : health.unhealthy();
      DeviceInventory inventory = state.inventory(unhealthy);
      inventory.notes().forEach(n -> LOG.info("node {}: {}", settings.nodeName(), n));
      try {
        publisher.publish(inventory);
      } catch (SlicePublisher.CountersDroppedException e) {
        LOG.error(
            "node {}: {}; publishing MIG devices statically", settings.nodeName(), e.getMessage());
        state.disablePartitionable();
        publisher.invalidate();
        publisher.publish(state.inventory(unhealthy));
      }
      published = true;
      return true;
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: publishing ResourceSlices failed (retrying in {} s): {}",
          settings.nodeName(),
          RETRY.toSeconds(),
          e.toString());
      return false;
    }
  }

  static BindableService v1(DRAPluginGrpc.AsyncService service) {
    return () -> DRAPluginGrpc.bindService(service);
  }

  static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.debug("cannot delete {}: {}", p, e.toString());
    }
  }
}

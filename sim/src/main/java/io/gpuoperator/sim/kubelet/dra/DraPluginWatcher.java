package io.gpuoperator.sim.kubelet.dra;

import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.pluginregistration.v1.InfoRequest;
import io.gpuoperator.kubelet.pluginregistration.v1.PluginInfo;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationStatus;
import io.gpuoperator.sim.kubelet.KubeletThreads;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's plugin watcher for DRA plugins: it looks for sockets in {@code plugins_registry}
 * (every half second, as the kubelet's desired-state loop reconciles), asks each new one {@code
 * GetInfo}, accepts a {@code DRAPlugin} that offers a service version it speaks (v1 first, then
 * v1beta1), tells it the outcome ({@code NotifyRegistrationStatus}) and connects to its endpoint. A
 * socket that disappears unregisters its driver.
 */
final class DraPluginWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DraPluginWatcher.class);
  private static final long SCAN_MS = 500;

  private final String nodeName;
  private final Path registry;
  private final Map<String, DraPluginClient> drivers = new ConcurrentHashMap<>();
  private final Map<Path, String> sockets = new HashMap<>();
  private final Set<Path> refused = new HashSet<>();
  private ScheduledFuture<?> task;
  private volatile boolean running;

  DraPluginWatcher(String nodeName, Path registry) {
    this.nodeName = nodeName;
    this.registry = registry;
  }

  /** Starts watching (again, after {@link #stop()}: every socket is registered anew). */
  synchronized void start() throws IOException {
    Files.createDirectories(registry);
    running = true;
    // On the kubelets' shared threads, not one per node.
    task =
        KubeletThreads.api()
            .scheduleWithFixedDelay(this::scanQuietly, 0, SCAN_MS, TimeUnit.MILLISECONDS);
  }

  /** Stops watching and forgets every plugin, as a killed kubelet does. */
  synchronized void stop() {
    running = false;
    if (task != null) {
      task.cancel(false);
    }
    // A scan that is registering holds the lock; one that starts later sees !running.
    synchronized (sockets) {
      drivers.values().forEach(DraPluginClient::close);
      drivers.clear();
      sockets.clear();
      refused.clear();
    }
  }

  /** The registered plugin of a driver, or null. */
  DraPluginClient plugin(String driver) {
    return drivers.get(driver);
  }

  /** The registered drivers. */
  Set<String> drivers() {
    return Set.copyOf(drivers.keySet());
  }

  @Override
  public void close() {
    stop();
  }

  private void scanQuietly() {
    if (!running) {
      return;
    }
    try {
      scan();
    } catch (IOException | RuntimeException e) {
      LOG.debug("node {}: plugin registry scan failed: {}", nodeName, e.toString());
    }
  }

  private void scan() throws IOException {
    Set<Path> present = new HashSet<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(registry, "*.sock")) {
      for (Path f : files) {
        present.add(f);
      }
    }
    synchronized (sockets) {
      if (!running) {
        return;
      }
      for (Path gone : Set.copyOf(sockets.keySet())) {
        if (!present.contains(gone)) {
          String driver = sockets.remove(gone);
          DraPluginClient c = drivers.remove(driver);
          if (c != null) {
            c.close();
          }
          LOG.info("node {}: DRA driver {} unregistered (socket {} gone)", nodeName, driver, gone);
        }
      }
      refused.retainAll(present);
      for (Path socket : present) {
        if (!sockets.containsKey(socket) && !refused.contains(socket)) {
          register(socket);
        }
      }
    }
  }

  private void register(Path socket) {
    ManagedChannel ch = UnixSockets.channel(socket);
    try {
      var stub = RegistrationGrpc.newBlockingStub(ch);
      PluginInfo info =
          stub.withDeadlineAfter(10, TimeUnit.SECONDS).getInfo(InfoRequest.getDefaultInstance());
      String error = validate(info);
      if (error == null && drivers.containsKey(info.getName())) {
        error = "DRA driver " + info.getName() + " is already registered";
      }
      stub.withDeadlineAfter(10, TimeUnit.SECONDS)
          .notifyRegistrationStatus(
              RegistrationStatus.newBuilder()
                  .setPluginRegistered(error == null)
                  .setError(error == null ? "" : error)
                  .build());
      if (error != null) {
        LOG.warn("node {}: plugin at {} refused: {}", nodeName, socket, error);
        refused.add(socket);
        return;
      }
      String service =
          info.getSupportedVersionsList().stream()
              .filter(DraConstants.SERVICES::contains)
              .findFirst()
              .orElseThrow();
      drivers.put(
          info.getName(),
          DraPluginClient.connect(info.getName(), Path.of(info.getEndpoint()), service));
      sockets.put(socket, info.getName());
      LOG.info(
          "node {}: DRA driver {} registered ({} at {})",
          nodeName,
          info.getName(),
          service,
          info.getEndpoint());
    } catch (RuntimeException e) {
      // Not answering yet (the plugin is still starting): the next scan tries again.
      LOG.debug("node {}: plugin at {} not answering: {}", nodeName, socket, e.toString());
    } finally {
      ch.shutdownNow();
    }
  }

  /** Why the kubelet refuses the plugin, or null. */
  static String validate(PluginInfo info) {
    if (!DraConstants.PLUGIN_TYPE.equals(info.getType())) {
      return "plugin type " + info.getType() + " is not " + DraConstants.PLUGIN_TYPE;
    }
    if (info.getName().isBlank()) {
      return "the plugin gave no driver name";
    }
    if (info.getSupportedVersionsList().stream().noneMatch(DraConstants.SERVICES::contains)) {
      return "none of services supported by the plugin ("
          + info.getSupportedVersionsList()
          + ") are supported by the kubelet ("
          + DraConstants.SERVICES
          + ")";
    }
    if (!Path.of(info.getEndpoint()).isAbsolute()) {
      return "endpoint " + info.getEndpoint() + " is not an absolute path";
    }
    return null;
  }
}

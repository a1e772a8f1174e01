package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.NUMANode;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.TopologyInfo;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC {@code DevicePlugin} server of one resource on its own socket ({@code nvidia-gpu.sock},
 * {@code nvidia-mig-1g.10gb.sock} ...), and its registration with the kubelet.
 */
public final class ResourceServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ResourceServer.class);
  private static final long DIAL_TIMEOUT_SECONDS = 5;

  private final ResourceSet resource;
  private final DevicePluginSettings settings;
  private final Path pluginDir;
  private final Path kubeletSocket;
  private final AllocateResponseModel allocateModel;
  private final PreferredAllocator allocator;
  private final Set<ServerCallStreamObserver<ListAndWatchResponse>> watchers =
      ConcurrentHashMap.newKeySet();
  private volatile ListAndWatchResponse current;
  private volatile Server server;
  private volatile Object socketKey;
  private volatile boolean registered;
  private volatile Object registeredWith;
  private volatile Path socket;
  private volatile Runnable onHangUp = () -> {};

  public ResourceServer(
      ResourceSet resource,
      DevicePluginSettings settings,
      Path kubeletSocket,
      LinkScores links,
      Set<String> unhealthy) {
    this.resource = resource;
    this.settings = settings;
    this.kubeletSocket = kubeletSocket;
    this.pluginDir = kubeletSocket.toAbsolutePath().getParent();
    this.socket = pluginDir.resolve(resource.socketName());
    this.allocateModel =
        new AllocateResponseModel(
            resource,
            settings,
            path -> Files.exists(Path.of(path)),
            () -> UUID.randomUUID().toString());
    this.allocator = new PreferredAllocator(resource, links, settings.allocationPolicy());
    this.current = deviceList(unhealthy);
  }

  /** The resource served. */
  public ResourceSet resource() {
    return resource;
  }

  /** The settings it was built with. */
  public DevicePluginSettings settings() {
    return settings;
  }

  /** This server's socket. */
  public Path socket() {
    return socket;
  }

  /**
   * Called when the kubelet hangs up on this registered server while it still serves, so that its
   * owner registers it again. The kubelet (1.36) ends the plugin registered last for a resource
   * when an earlier plugin's stream of that resource ends: in a rolling update the new pod's plugin
   * is cut off as the old pod stops, and must register again to keep the node's GPUs allocatable.
   */
  public ResourceServer onHangUp(Runnable action) {
    this.onHangUp = action;
    return this;
  }

  /**
   * Serves on the resource's socket, replacing a stale one; when another plugin of the resource
   * serves there (the old pod of a rolling update), on the next free name instead.
   */
  public synchronized void start() throws IOException {
    socket = freeSocket();
    server = UnixSockets.serve(socket(), new Service());
    socketKey = SocketFiles.identity(socket());
    registered = false;
    ManagedChannel ch = UnixSockets.channel(socket());
    try {
      DevicePluginGrpc.newBlockingStub(ch)
          .withWaitForReady()
          .withDeadlineAfter(DIAL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .getDevicePluginOptions(Empty.getDefaultInstance());
    } catch (RuntimeException e) {
      // The server is bound; a slow answer (a loaded machine) is no reason to give up. The
      // supervisor restarts it if it really is dead.
      LOG.warn(
          "resource {}: self-dial of {} failed: {}", resource.name(), socket(), e.getMessage());
    } finally {
      ch.shutdownNow();
    }
    LOG.info(
        "resource {}: serving {} devices on {}",
        resource.name(),
        resource.devices().size(),
        socket());
  }

  /** Registers with the kubelet; throws when the kubelet is absent or refuses. */
  public void register() {
    // Read before dialling: a kubelet that replaces its socket meanwhile is not taken for this one.
    Object kubelet = SocketFiles.identity(kubeletSocket);
    ManagedChannel ch = UnixSockets.channel(kubeletSocket);
    try {
      RegistrationGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DIAL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion(DevicePluginConstants.VERSION)
                  .setEndpoint(socket().getFileName().toString())
                  .setResourceName(resource.name())
                  .setOptions(options())
                  .build());
      registered = true;
      registeredWith = kubelet;
      LOG.info("resource {}: registered with the kubelet at {}", resource.name(), kubeletSocket);
    } finally {
      ch.shutdownNow();
    }
  }

  /**
   * Whether this server serves and is registered with the kubelet whose socket has {@code
   * kubeletKey} ({@link SocketFiles#identity}): a new kubelet found by a supervision pass after
   * this server already registered with it (a pass that restarted it while the kubelet restarted)
   * needs no second registration.
   */
  public boolean registeredWith(Object kubeletKey) {
    return registered && alive() && kubeletKey != null && kubeletKey.equals(registeredWith);
  }

  /** True once registered since the last start (and since the kubelet last hung up). */
  public boolean registered() {
    return registered;
  }

  /**
   * True when a plugin of the same resource started after this one serves next to it: the new pod
   * of a rolling update, which the kubelet now talks to. This one then does not register again.
   */
  public boolean superseded() {
    var mine = SocketFiles.created(socket());
    if (mine == null) {
      return false;
    }
    for (String name : SocketFiles.names(resource.socketName())) {
      Path other = pluginDir.resolve(name);
      var t = other.equals(socket()) ? null : SocketFiles.created(other);
      if (t != null && t.compareTo(mine) > 0) {
        return true;
      }
    }
    return false;
  }

  private Path freeSocket() {
    List<String> names = SocketFiles.names(resource.socketName());
    for (String name : names) {
      Path p = pluginDir.resolve(name);
      if (!Files.exists(p) || !answers(p)) {
        return p;
      }
    }
    // Every name serves: more plugins than a rolling update starts. The usual name, as before.
    return pluginDir.resolve(names.get(0));
  }

  /** Whether a plugin serves on the socket (a stale file refuses the connection at once). */
  private static boolean answers(Path p) {
    ManagedChannel ch = UnixSockets.channel(p);
    try {
      DevicePluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(1, TimeUnit.SECONDS)
          .getDevicePluginOptions(Empty.getDefaultInstance());
      return true;
    } catch (RuntimeException e) {
      return false;
    } finally {
      ch.shutdownNow();
    }
  }

  private void hungUp() {
    Server s = server;
    if (s == null || s.isShutdown() || !registered) {
      return; // stopping, or not ours to repair
    }
    registered = false;
    LOG.info(
        "resource {}: the kubelet ended the device list stream of {}",
        resource.name(),
        socket().getFileName());
    onHangUp.run();
  }

  /**
   * True while the server runs and its socket is the one it created: a stopped server, or a socket
   * deleted or replaced by someone else (the kubelet empties its directory on restart), is not.
   */
  public boolean alive() {
    Server s = server;
    return s != null
        && !s.isShutdown()
        && Objects.equals(socketKey, SocketFiles.identity(socket()));
  }

  /** Sends the device list again when the health of one of its devices changed. */
  public void updateHealth(Set<String> unhealthy) {
    ListAndWatchResponse next = deviceList(unhealthy);
    if (next.equals(current)) {
      return;
    }
    current = next;
    for (ServerCallStreamObserver<ListAndWatchResponse> w : watchers) {
      send(w, next);
    }
  }

  /** The device list as last sent. */
  public ListAndWatchResponse deviceList() {
    return current;
  }

  /** Stops serving and removes the socket. */
  public synchronized void stop() {
    Server s = server;
    server = null;
    for (ServerCallStreamObserver<ListAndWatchResponse> w : watchers) {
      try {
        w.onCompleted();
      } catch (RuntimeException e) {
        // The stream is already gone.
      }
    }
    watchers.clear();
    if (s != null) {
      s.shutdownNow();
      try {
        s.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Object key = socketKey;
    if (key != null && Objects.equals(key, SocketFiles.identity(socket()))) {
      try {
        Files.deleteIfExists(socket());
      } catch (IOException e) {
        LOG.warn("resource {}: cannot remove {}: {}", resource.name(), socket(), e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The gRPC server (tests stop it to simulate a crash). */
  Server grpcServer() {
    return server;
  }

  private static DevicePluginOptions options() {
    return DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true).build();
  }

  private ListAndWatchResponse deviceList(Set<String> unhealthy) {
    var response = ListAndWatchResponse.newBuilder();
    for (PluginDevice d : resource.devices()) {
      var device =
          Device.newBuilder()
              .setID(d.id())
              .setHealth(
                  unhealthy.contains(d.uuid())
                      ? DevicePluginConstants.UNHEALTHY
                      : DevicePluginConstants.HEALTHY);
      if (d.numaNode() >= 0) {
        device.setTopology(
            TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(d.numaNode())));
      }
      response.addDevices(device);
    }
    return response.build();
  }

  private void send(ServerCallStreamObserver<ListAndWatchResponse> w, ListAndWatchResponse r) {
    synchronized (w) {
      if (w.isCancelled()) {
        watchers.remove(w);
        return;
      }
      try {
        w.onNext(r);
      } catch (RuntimeException e) {
        watchers.remove(w);
      }
    }
  }

  /** The DevicePlugin service of this resource. */
  private final class Service extends DevicePluginGrpc.DevicePluginImplBase {
    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
      out.onNext(options());
      out.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
      var observer = (ServerCallStreamObserver<ListAndWatchResponse>) out;
      observer.setOnCancelHandler(
          () -> {
            watchers.remove(observer);
            hungUp();
          });
      watchers.add(observer);
      send(observer, current);
    }

    @Override
    public void getPreferredAllocation(
        PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
      var response = PreferredAllocationResponse.newBuilder();
      for (ContainerPreferredAllocationRequest r : request.getContainerRequestsList()) {
        response.addContainerResponses(
            ContainerPreferredAllocationResponse.newBuilder()
                .addAllDeviceIDs(
                    allocator.preferred(
                        r.getAvailableDeviceIDsList(),
                        r.getMustIncludeDeviceIDsList(),
                        r.getAllocationSize())));
      }
      out.onNext(response.build());
      out.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
      var response = AllocateResponse.newBuilder();
      try {
        for (ContainerAllocateRequest r : request.getContainerRequestsList()) {
          response.addContainerResponses(allocateModel.allocate(r.getDevicesIdsList()));
        }
      } catch (AllocationRefusedException e) {
        LOG.warn("resource {}: {}", resource.name(), e.getMessage());
        // A plain error, as the original returns: the kubelet sees code Unknown.
        out.onError(Status.UNKNOWN.withDescription(e.getMessage()).asRuntimeException());
        return;
      }
      out.onNext(response.build());
      out.onCompleted();
    }

    @Override
    public void preStartContainer(
        PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
      out.onNext(PreStartContainerResponse.getDefaultInstance());
      out.onCompleted();
    }
  }
}

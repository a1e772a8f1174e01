package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The kubelet's connection to one registered resource of a device plugin: the channel to the
 * plugin's socket, the {@code ListAndWatch} stream and the last device list it sent.
 */
final class PluginEndpoint {
  /** The kubelet's own deadline for Allocate and GetPreferredAllocation calls. */
  private static final long CALL_TIMEOUT_SECONDS = 10;

  private final String resource;
  private final Path socket;
  private final DevicePluginOptions options;
  private final ManagedChannel channel;
  private final DevicePluginGrpc.DevicePluginBlockingStub stub;
  private volatile Map<String, Device> devices = Map.of();
  private volatile boolean connected = true;
  private volatile boolean stopped;

  PluginEndpoint(String resource, Path socket, DevicePluginOptions options) {
    this.resource = resource;
    this.socket = socket;
    this.options = options;
    this.channel = UnixSockets.channel(socket);
    this.stub = DevicePluginGrpc.newBlockingStub(channel);
  }

  String resource() {
    return resource;
  }

  /**
   * Starts from the device list of the plugin it replaces, until its own first list arrives: the
   * kubelet keeps a resource's devices across a re-registration (they are replaced by the next
   * ListAndWatch message), so a plugin registering again does not empty the node's allocatable.
   */
  void inherit(PluginEndpoint previous) {
    if (previous != null && previous.connected()) {
      devices = previous.devices;
    }
  }

  Path socket() {
    return socket;
  }

  DevicePluginOptions options() {
    return options;
  }

  /** The devices of the last ListAndWatch message, by ID, in the plugin's order. */
  Map<String, Device> devices() {
    return devices;
  }

  boolean connected() {
    return connected && !stopped;
  }

  /** IDs of the devices that may be allocated: healthy, from a plugin still connected. */
  List<String> healthyIds() {
    List<String> ids = new ArrayList<>();
    if (!connected()) {
      return ids;
    }
    for (Device d : devices.values()) {
      if (DevicePluginConstants.HEALTHY.equals(d.getHealth())) {
        ids.add(d.getID());
      }
    }
    return ids;
  }

  /**
   * Opens the ListAndWatch stream; {@code onUpdate} runs after each device list, {@code
   * onDisconnect} once when the stream ends without {@link #stop()}.
   */
  void start(Consumer<PluginEndpoint> onUpdate, Consumer<PluginEndpoint> onDisconnect) {
    DevicePluginGrpc.newStub(channel)
        .listAndWatch(
            Empty.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(ListAndWatchResponse response) {
                Map<String, Device> next = new LinkedHashMap<>();
                for (Device d : response.getDevicesList()) {
                  next.put(d.getID(), d);
                }
                devices = next;
                if (!stopped) {
                  onUpdate.accept(PluginEndpoint.this);
                }
              }

              @Override
              public void onError(Throwable t) {
                ended();
              }

              @Override
              public void onCompleted() {
                ended();
              }

              private void ended() {
                connected = false;
                if (!stopped) {
                  onDisconnect.accept(PluginEndpoint.this);
                }
              }
            });
  }

  /** Asks the plugin which of the available devices it prefers for one container. */
  List<String> preferredAllocation(List<String> available, int size) {
    var response =
        stub.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .getPreferredAllocation(
                PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(
                        ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(available)
                            .setAllocationSize(size))
                    .build());
    return response.getContainerResponsesCount() == 0
        ? List.of()
        : response.getContainerResponses(0).getDeviceIDsList();
  }

  /** Allocates the devices for one container. */
  ContainerAllocateResponse allocate(List<String> ids) {
    var response =
        stub.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .allocate(
                AllocateRequest.newBuilder()
                    .addContainerRequests(
                        ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids))
                    .build());
    if (response.getContainerResponsesCount() != 1) {
      throw new IllegalStateException(
          "plugin for "
              + resource
              + " answered Allocate for 1 container with "
              + response.getContainerResponsesCount()
              + " responses");
    }
    return response.getContainerResponses(0);
  }

  /** Calls PreStartContainer, as the kubelet does before starting a container when asked to. */
  void preStart(List<String> ids) {
    stub.withDeadlineAfter(30, TimeUnit.SECONDS)
        .preStartContainer(PreStartContainerRequest.newBuilder().addAllDevicesIds(ids).build());
  }

  /** Closes the channel; the stream's end is then not reported as a disconnect. */
  void stop() {
    stopped = true;
    channel.shutdownNow();
  }
}

package io.gpuoperator.sim.kubelet.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.NUMANode;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.TopologyInfo;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.AllocatableResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.GetPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet side against a minimal plugin written here (the real plugin's tests are in module
 * node): registration rules, device selection, refusals and the pod-resources answers.
 */
class KubeletDeviceManagerTest {
  private static final String RESOURCE = "example.com/dev";

  @TempDir Path dir;
  private KubeletDeviceManager kubelet;
  private Server plugin;
  private final List<PreferredAllocationRequest> preferredCalls = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (plugin != null) {
      plugin.shutdownNow().awaitTermination();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }

  @Test
  void registersStreamsAllocatesAndServesPodResources() throws Exception {
    kubelet = new KubeletDeviceManager("n1", dir, null).start();
    startPlugin("dev.sock", List.of("d0", "d1", "d2", "bad"));
    register(request("dev.sock"));
    await(() -> kubelet.allocatableDevices().getOrDefault(RESOURCE, List.of()).size() == 3);
    assertThat(kubelet.devices(RESOURCE)).containsOnlyKeys("d0", "d1", "d2", "bad");

    Admission first = kubelet.admit(pod("p1", 2));
    assertThat(first.admitted()).isTrue();
    // The plugin prefers the last IDs it is offered; the kubelet side takes its answer.
    assertThat(first.assignment().deviceIds(RESOURCE)).containsExactly("d1", "d2");
    assertThat(preferredCalls.get(0).getContainerRequests(0).getAvailableDeviceIDsList())
        .containsExactly("d0", "d1", "d2");
    assertThat(first.assignment().containers().get(0).response().getEnvsMap())
        .containsEntry("DEVS", "d1,d2");
    assertThat(kubelet.admit(pod("p1", 2)).assignment()).isEqualTo(first.assignment());

    Admission second = kubelet.admit(pod("p2", 2));
    assertThat(second.admitted()).isFalse();
    assertThat(second.reason()).isEqualTo("UnexpectedAdmissionError");
    assertThat(second.message())
        .isEqualTo(
            "Allocate failed due to requested number of devices unavailable for example.com/dev."
                + " Requested: 2, Available: 1, which is unexpected");

    ManagedChannel ch = UnixSockets.channel(kubelet.podResourcesSocket());
    try {
      var lister = PodResourcesListerGrpc.newBlockingStub(ch);
      var list = lister.list(ListPodResourcesRequest.getDefaultInstance());
      assertThat(list.getPodResourcesList()).hasSize(1);
      var containers = list.getPodResources(0).getContainersList();
      assertThat(containers.get(0).getDevicesList())
          .extracting(d -> d.getDeviceIds(0))
          .containsExactly("d1", "d2");
      assertThat(containers.get(0).getDevices(0).getTopology().getNodes(0).getID()).isEqualTo(1);
      var get =
          lister.get(
              GetPodResourcesRequest.newBuilder().setPodName("p1").setPodNamespace("ns").build());
      assertThat(get.getPodResources().getName()).isEqualTo("p1");
      assertThatThrownBy(
              () ->
                  lister.get(
                      GetPodResourcesRequest.newBuilder()
                          .setPodName("nope")
                          .setPodNamespace("ns")
                          .build()))
          .hasMessageContaining("pod nope in namespace ns not found");
      var allocatable =
          lister.getAllocatableResources(AllocatableResourcesRequest.getDefaultInstance());
      assertThat(allocatable.getDevicesList())
          .extracting(d -> d.getDeviceIds(0))
          .containsExactly("d0", "d1", "d2");

      kubelet.release(first.assignment().uid());
      assertThat(lister.list(ListPodResourcesRequest.getDefaultInstance()).getPodResourcesCount())
          .isZero();
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void appContainersReuseTheDevicesOfInitContainers() throws Exception {
    kubelet = new KubeletDeviceManager("n1", dir, null).start();
    startPlugin("dev.sock", List.of("d0", "d1", "d2"));
    register(request("dev.sock"));
    await(() -> kubelet.allocatableDevices().getOrDefault(RESOURCE, List.of()).size() == 3);
    Pod pod =
        new PodBuilder(pod("p1", 2))
            .editSpec()
            .addNewInitContainer()
            .withName("validate")
            .withNewResources()
            .addToLimits(RESOURCE, new Quantity("2"))
            .endResources()
            .endInitContainer()
            .endSpec()
            .build();
    Admission a = kubelet.admit(pod);
    assertThat(a.admitted()).isTrue();
    assertThat(a.assignment().containers())
        .extracting(ContainerAssignment::container)
        .containsExactly("validate", "main");
    // Three devices suffice for 2 + 2: the app container takes the init container's devices.
    assertThat(a.assignment().containers().get(1).deviceIds())
        .isEqualTo(a.assignment().containers().get(0).deviceIds());
    ManagedChannel ch = UnixSockets.channel(kubelet.podResourcesSocket());
    try {
      var list =
          PodResourcesListerGrpc.newBlockingStub(ch)
              .list(ListPodResourcesRequest.getDefaultInstance());
      assertThat(list.getPodResources(0).getContainersList())
          .extracting(c -> c.getName())
          .containsExactly("main");
    } finally {
      ch.shutdownNow();
    }
  }

  @Test
  void pluginErrorFailsThePodWithTheGoFormattedStatus() throws Exception {
    kubelet = new KubeletDeviceManager("n1", dir, null).start();
    startPlugin("dev.sock", List.of("d0", "refuse"));
    register(request("dev.sock"));
    await(() -> kubelet.allocatableDevices().getOrDefault(RESOURCE, List.of()).size() == 2);
    Admission a = kubelet.admit(pod("p1", 2));
    assertThat(a.admitted()).isFalse();
    assertThat(a.message())
        .isEqualTo(
            "Allocate failed due to rpc error: code = InvalidArgument desc = no, which is"
                + " unexpected");
    assertThat(kubelet.assignments()).isEmpty();
  }

  @Test
  void rejectsBadRegistrationsWithTheKubeletsMessages() throws Exception {
    kubelet = new KubeletDeviceManager("n1", dir, null).start();
    assertThatThrownBy(
            () -> register(request("dev.sock").toBuilder().setVersion("v1alpha").build()))
        .hasMessageContaining("Requested device plugin version \"v1alpha\" is not supported");
    assertThatThrownBy(
            () -> register(request("dev.sock").toBuilder().setResourceName("gpu").build()))
        .hasMessageContaining("invalid name of device plugin socket: gpu");
  }

  @Test
  void restartEmptiesThePluginDirAndCountsReRegistrations() throws Exception {
    kubelet = new KubeletDeviceManager("n1", dir, null).start();
    startPlugin("dev.sock", List.of("d0"));
    register(request("dev.sock"));
    await(() -> kubelet.resources().contains(RESOURCE));
    kubelet.restart();
    assertThat(kubelet.resources()).isEmpty();
    assertThat(dir.resolve("device-plugins/dev.sock")).doesNotExist();
    assertThat(Files.exists(kubelet.kubeletSocket())).isTrue();
    startPlugin("dev.sock", List.of("d0"));
    register(request("dev.sock"));
    await(() -> kubelet.resources().contains(RESOURCE));
    assertThat(kubelet.registrations(RESOURCE)).isEqualTo(2);
  }

  private RegisterRequest request(String endpoint) {
    return RegisterRequest.newBuilder()
        .setVersion(DevicePluginConstants.VERSION)
        .setEndpoint(endpoint)
        .setResourceName(RESOURCE)
        .setOptions(DevicePluginOptions.newBuilder().setGetPreferredAllocationAvailable(true))
        .build();
  }

  private void register(RegisterRequest request) {
    ManagedChannel ch = UnixSockets.channel(kubelet.kubeletSocket());
    try {
      RegistrationGrpc.newBlockingStub(ch).register(request);
    } finally {
      ch.shutdownNow();
    }
  }

  private void startPlugin(String socket, List<String> ids) throws Exception {
    if (plugin != null) {
      plugin.shutdownNow().awaitTermination();
    }
    plugin =
        UnixSockets.serve(
            kubelet.pluginDir().resolve(socket),
            new DevicePluginGrpc.DevicePluginImplBase() {
              @Override
              public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
                var response = ListAndWatchResponse.newBuilder();
                for (String id : ids) {
                  response.addDevices(
                      Device.newBuilder()
                          .setID(id)
                          .setHealth(
                              id.equals("bad")
                                  ? DevicePluginConstants.UNHEALTHY
                                  : DevicePluginConstants.HEALTHY)
                          .setTopology(
                              TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(1))));
                }
                out.onNext(response.build());
              }

              @Override
              public void getPreferredAllocation(
                  PreferredAllocationRequest request,
                  StreamObserver<PreferredAllocationResponse> out) {
                preferredCalls.add(request);
                var r = request.getContainerRequests(0);
                List<String> available = r.getAvailableDeviceIDsList();
                out.onNext(
                    PreferredAllocationResponse.newBuilder()
                        .addContainerResponses(
                            ContainerPreferredAllocationResponse.newBuilder()
                                .addAllDeviceIDs(
                                    available.subList(
                                        available.size() - r.getAllocationSize(),
                                        available.size())))
                        .build());
                out.onCompleted();
              }

              @Override
              public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
                List<String> ids = request.getContainerRequests(0).getDevicesIdsList();
                if (ids.contains("refuse")) {
                  out.onError(Status.INVALID_ARGUMENT.withDescription("no").asRuntimeException());
                  return;
                }
                out.onNext(
                    AllocateResponse.newBuilder()
                        .addContainerResponses(
                            ContainerAllocateResponse.newBuilder()
                                .putEnvs("DEVS", String.join(",", ids)))
                        .build());
                out.onCompleted();
              }
            });
  }

  private static Pod pod(String name, int count) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ns")
        .withUid("uid-" + name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToLimits(RESOURCE, new Quantity(Integer.toString(count)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 30 s");
      }
      Thread.sleep(20);
    }
  }
}

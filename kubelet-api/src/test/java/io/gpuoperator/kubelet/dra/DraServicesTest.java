package io.gpuoperator.kubelet.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.kubelet.dra.v1.Claim;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.Device;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourceResponse;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourceResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.pluginregistration.v1.InfoRequest;
import io.gpuoperator.kubelet.pluginregistration.v1.PluginInfo;
import io.gpuoperator.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DraServicesTest {
  @TempDir Path dir;

  /** The gRPC paths are the kubelet's: a different proto package would be "unimplemented". */
  @Test
  void servicePathsAreTheKubelets() {
    assertThat(DRAPluginGrpc.getNodePrepareResourcesMethod().getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources");
    assertThat(
            io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.getNodeUnprepareResourcesMethod()
                .getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources");
    assertThat(RegistrationGrpc.getGetInfoMethod().getFullMethodName())
        .isEqualTo("pluginregistration.Registration/GetInfo");
  }

  @Test
  void oneImplementationAnswersBothVersionsOverASocket() throws Exception {
    DRAPluginGrpc.AsyncService v1 =
        new DRAPluginGrpc.AsyncService() {
          @Override
          public void nodePrepareResources(
              NodePrepareResourcesRequest request,
              StreamObserver<NodePrepareResourcesResponse> out) {
            var response = NodePrepareResourcesResponse.newBuilder();
            for (Claim c : request.getClaimsList()) {
              response.putClaims(
                  c.getUid(),
                  NodePrepareResourceResponse.newBuilder()
                      .addDevices(
                          Device.newBuilder()
                              .setPoolName("node-a")
                              .setDeviceName("gpu-0")
                              .addCdiDeviceIds("k8s.gpu.nvidia.com/claim=" + c.getName())
                              .setShareId("share-1"))
                      .build());
            }
            out.onNext(response.build());
            out.onCompleted();
          }

          @Override
          public void nodeUnprepareResources(
              NodeUnprepareResourcesRequest request,
              StreamObserver<NodeUnprepareResourcesResponse> out) {
            var response = NodeUnprepareResourcesResponse.newBuilder();
            for (Claim c : request.getClaimsList()) {
              response.putClaims(
                  c.getUid(),
                  NodeUnprepareResourceResponse.newBuilder()
                      .setError("kept " + c.getName())
                      .build());
            }
            out.onNext(response.build());
            out.onCompleted();
          }
        };
    Path sock = dir.resolve("dra.sock");
    Path reg = dir.resolve("reg.sock");
    var executor = Executors.newSingleThreadExecutor();
    Server server =
        UnixSockets.serve(
            sock,
            executor,
            new io.grpc.BindableService() {
              @Override
              public io.grpc.ServerServiceDefinition bindService() {
                return DRAPluginGrpc.bindService(v1);
              }
            },
            DraServices.v1beta1(v1));
    Server registration =
        UnixSockets.serve(
            reg,
            new RegistrationGrpc.RegistrationImplBase() {
              @Override
              public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
                out.onNext(
                    PluginInfo.newBuilder()
                        .setType(DraConstants.PLUGIN_TYPE)
                        .setName("gpu.nvidia.com")
                        .setEndpoint(sock.toString())
                        .addAllSupportedVersions(DraConstants.SERVICES)
                        .build());
                out.onCompleted();
              }
            });
    ManagedChannel channel = UnixSockets.channel(sock);
    ManagedChannel regChannel = UnixSockets.channel(reg);
    try {
      PluginInfo info =
          RegistrationGrpc.newBlockingStub(regChannel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .getInfo(InfoRequest.getDefaultInstance());
      assertThat(info.getSupportedVersionsList())
          .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");

      var claim = Claim.newBuilder().setNamespace("ns").setUid("uid-1").setName("c1").build();
      NodePrepareResourcesResponse v1Answer =
          DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .nodePrepareResources(
                  NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
      assertThat(v1Answer.getClaimsOrThrow("uid-1").getDevices(0).getShareId())
          .isEqualTo("share-1");

      // v1beta1 takes and answers v1's messages (imported), without v1's share_id.
      var v1beta1Request = NodePrepareResourcesRequest.newBuilder().addClaims(claim).build();
      var v1beta1Answer =
          io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .nodePrepareResources(v1beta1Request);
      var device = v1beta1Answer.getClaimsOrThrow("uid-1").getDevices(0);
      assertThat(device.getDeviceName()).isEqualTo("gpu-0");
      assertThat(device.getCdiDeviceIdsList()).containsExactly("k8s.gpu.nvidia.com/claim=c1");
      assertThat(device.hasShareId()).isFalse();

      // Unprepare's messages are v1's in both versions: the v1beta1 call reaches the v1 handler.
      var unprepared =
          io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .nodeUnprepareResources(
                  NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
      assertThat(unprepared.getClaimsOrThrow("uid-1").getError()).isEqualTo("kept c1");
    } finally {
      channel.shutdownNow();
      regChannel.shutdownNow();
      server.shutdownNow().awaitTermination();
      registration.shutdownNow().awaitTermination();
      executor.shutdownNow();
    }
  }
}

package io.gpuoperator.kubelet.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnixSocketsTest {
  @TempDir Path dir;

  @Test
  void unaryCallOverAUnixSocketReplacingAStaleFile() throws Exception {
    Path sock = dir.resolve("plugin.sock");
    Files.writeString(sock, "stale");
    Server server =
        UnixSockets.serve(
            sock,
            new DevicePluginGrpc.DevicePluginImplBase() {
              @Override
              public void getDevicePluginOptions(
                  Empty request, StreamObserver<DevicePluginOptions> out) {
                out.onNext(
                    DevicePluginOptions.newBuilder()
                        .setGetPreferredAllocationAvailable(true)
                        .build());
                out.onCompleted();
              }
            });
    ManagedChannel channel = UnixSockets.channel(sock);
    try {
      DevicePluginOptions options =
          DevicePluginGrpc.newBlockingStub(channel)
              // Generous: the first call of a JVM on a loaded 2-core CI machine can take seconds.
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .getDevicePluginOptions(Empty.getDefaultInstance());
      assertThat(options.getGetPreferredAllocationAvailable()).isTrue();
      assertThat(options.getPreStartRequired()).isFalse();
    } finally {
      channel.shutdownNow();
      server.shutdownNow().awaitTermination();
    }
  }
}

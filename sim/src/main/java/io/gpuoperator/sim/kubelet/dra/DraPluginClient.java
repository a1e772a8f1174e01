package io.gpuoperator.sim.kubelet.dra;

import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.kubelet.dra.DraServices;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's connection to one registered DRA plugin, speaking the service version chosen at
 * registration (v1, or v1beta1 for older plugins; v1beta1 imports v1's requests, and its prepare
 * response is converted through its wire form). Calls time out after 45 s, as the kubelet's do.
 *
 * @param driver the driver name the plugin registered
 * @param endpoint its DRAPlugin socket
 * @param service {@link DraConstants#SERVICE_V1} or {@link DraConstants#SERVICE_V1BETA1}
 */
record DraPluginClient(String driver, Path endpoint, String service, ManagedChannel channel)
    implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = 45;

  static DraPluginClient connect(String driver, Path endpoint, String service) {
    return new DraPluginClient(driver, endpoint, service, UnixSockets.channel(endpoint));
  }

  NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
    if (service.equals(DraConstants.SERVICE_V1)) {
      return DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .nodePrepareResources(request);
    }
    var answer =
        io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
            .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .nodePrepareResources(request);
    return DraServices.convert(answer, NodePrepareResourcesResponse.parser());
  }

  /** The request and the response are the same messages in both versions (v1beta1 imports v1's). */
  NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
    if (service.equals(DraConstants.SERVICE_V1)) {
      return DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .nodeUnprepareResources(request);
    }
    return io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .nodeUnprepareResources(request);
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}

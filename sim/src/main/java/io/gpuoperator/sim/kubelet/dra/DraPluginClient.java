package io.gpuoperator.sim.kubelet.dra;

import io.gpuoperator.kubelet.dra.DraConstants;
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
 * registration (v1, or v1beta1 for older plugins; v1beta1's messages are v1's, imported). Calls
 * time out after 45 s, as the kubelet's do.
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
    return isV1() ? v1().nodePrepareResources(request) : v1beta1().nodePrepareResources(request);
  }

  NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
    return isV1()
        ? v1().nodeUnprepareResources(request)
        : v1beta1().nodeUnprepareResources(request);
  }

  private boolean isV1() {
    return service.equals(DraConstants.SERVICE_V1);
  }

  private DRAPluginGrpc.DRAPluginBlockingStub v1() {
    return DRAPluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub v1beta1() {
    return io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}

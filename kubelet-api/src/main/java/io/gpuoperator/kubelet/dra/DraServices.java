package io.gpuoperator.kubelet.dra;

import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.BindableService;
import io.grpc.stub.StreamObserver;

/**
 * One DRA plugin implementation served under both kubelet API versions. The v1beta1 API uses v1's
 * messages (its Device lacks only {@code share_id}), so a v1beta1 call goes to the v1 handler and
 * its prepare answer loses {@code share_id}: the bytes an older kubelet reads are its own API's.
 */
public final class DraServices {
  private DraServices() {}

  /** The v1beta1 DRAPlugin service, answering through the v1 implementation. */
  public static BindableService v1beta1(DRAPluginGrpc.AsyncService v1) {
    return new io.gpuoperator.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginImplBase() {
      @Override
      public void nodePrepareResources(
          NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
        v1.nodePrepareResources(request, withoutShareIds(out));
      }

      @Override
      public void nodeUnprepareResources(
          NodeUnprepareResourcesRequest request,
          StreamObserver<NodeUnprepareResourcesResponse> out) {
        v1.nodeUnprepareResources(request, out);
      }
    };
  }

  /** The prepare response as v1beta1 has it: no device carries v1's {@code share_id}. */
  static NodePrepareResourcesResponse withoutShareIds(NodePrepareResourcesResponse response) {
    var v1beta1 = NodePrepareResourcesResponse.newBuilder();
    response
        .getClaimsMap()
        .forEach(
            (uid, claim) -> {
              var c = claim.toBuilder();
              c.getDevicesBuilderList().forEach(d -> d.clearShareId());
              v1beta1.putClaims(uid, c.build());
            });
    return v1beta1.build();
  }

  private static StreamObserver<NodePrepareResourcesResponse> withoutShareIds(
      StreamObserver<NodePrepareResourcesResponse> out) {
    return new StreamObserver<>() {
      @Override
      public void onNext(NodePrepareResourcesResponse value) {
        out.onNext(withoutShareIds(value));
      }

      @Override
      public void onError(Throwable t) {
        out.onError(t);
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }
}

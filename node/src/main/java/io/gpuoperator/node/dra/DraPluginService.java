package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpuoperator.kubelet.dra.v1.Claim;
import io.gpuoperator.kubelet.dra.v1.DRAPluginGrpc;
import io.gpuoperator.kubelet.dra.v1.Device;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourceResponse;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourceResponse;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's calls into the plugin ({@code DRAPlugin} v1; v1beta1 through {@code DraServices}).
 * Each claim is answered on its own: a claim that fails gets its error in the response and the
 * others still succeed, as the API intends. Prepare reads the claim's allocation from the API
 * server only when the checkpoint does not already hold the claim as prepared.
 */
public final class DraPluginService implements DRAPluginGrpc.AsyncService {
  private static final Logger LOG = LoggerFactory.getLogger(DraPluginService.class);

  private final Preparer state;
  private final ClaimReader claims;

  public DraPluginService(Preparer state, ClaimReader claims) {
    this.state = state;
    this.claims = claims;
  }

  /**
   * What prepares one driver's claims on the node ({@link DeviceState} for {@code gpu.nvidia.com},
   * {@link ComputeDomainState} for {@code compute-domain.nvidia.com}): idempotent, serialised.
   */
  public interface Preparer {
    /** The driver whose allocation results it prepares. */
    String driver();

    /** The pool (node) name. */
    String pool();

    /** The completed preparation of a claim, or null when there is none. */
    List<Checkpoint.PreparedDevice> prepared(String uid);

    /**
     * Prepares a claim's devices; returns them with their CDI device IDs.
     *
     * @throws IllegalArgumentException for a claim that cannot be prepared as it is, naming why
     */
    List<Checkpoint.PreparedDevice> prepare(ClaimAllocation claim) throws java.io.IOException;

    /** Undoes a claim's preparation; a claim the node does not know is already unprepared. */
    void unprepare(String uid) throws java.io.IOException;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
    var response = NodePrepareResourcesResponse.newBuilder();
    for (Claim c : request.getClaimsList()) {
      response.putClaims(c.getUid(), prepare(c));
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
    var response = NodeUnprepareResourcesResponse.newBuilder();
    for (Claim c : request.getClaimsList()) {
      var answer = NodeUnprepareResourceResponse.newBuilder();
      try {
        state.unprepare(c.getUid());
      } catch (Exception e) {
        String message = "unprepare of ResourceClaim " + ref(c) + " failed: " + e.getMessage();
        LOG.warn(message, e);
        answer.setError(message);
      }
      response.putClaims(c.getUid(), answer.build());
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  private NodePrepareResourceResponse prepare(Claim c) {
    var answer = NodePrepareResourceResponse.newBuilder();
    try {
      List<Checkpoint.PreparedDevice> devices = state.prepared(c.getUid());
      if (devices == null) {
        GenericKubernetesResource claim = claims.get(c.getNamespace(), c.getName());
        if (claim == null) {
          throw new IllegalArgumentException("ResourceClaim " + ref(c) + " does not exist");
        }
        String uid = claim.getMetadata().getUid();
        if (!c.getUid().equals(uid)) {
          throw new IllegalArgumentException(
              "ResourceClaim "
                  + ref(c)
                  + " has UID "
                  + uid
                  + ", not "
                  + c.getUid()
                  + " (it was deleted and created again)");
        }
        devices = state.prepare(ClaimAllocation.of(claim, state.driver(), state.pool()));
      }
      for (Checkpoint.PreparedDevice d : devices) {
        answer.addDevices(
            Device.newBuilder()
                .addAllRequestNames(d.requests())
                .setPoolName(state.pool())
                .setDeviceName(d.device())
                .addAllCdiDeviceIds(d.cdiDeviceIds()));
      }
    } catch (Exception e) {
      String message = e.getMessage() == null ? e.toString() : e.getMessage();
      if (!message.startsWith("ResourceClaim ")) {
        message = "ResourceClaim " + ref(c) + ": " + message;
      }
      LOG.warn("prepare failed: {}", message);
      answer.clearDevices().setError(message);
    }
    return answer.build();
  }

  private static String ref(Claim c) {
    return c.getNamespace() + "/" + c.getName();
  }
}

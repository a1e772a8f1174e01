package io.gpuoperator.node.exporter;

import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's pod-resources API ({@code pod-resources/kubelet.sock}), asked once per collection
 * with a deadline. The channel reconnects by itself when the kubelet restarts.
 */
public final class PodResourcesClient implements AutoCloseable {
  /** Where the kubelet serves it. */
  public static final String DEFAULT_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";

  private final Path socket;
  private final ManagedChannel channel;
  private final Duration timeout;

  public PodResourcesClient(Path socket, Duration timeout) {
    this.socket = socket;
    this.channel = UnixSockets.channel(socket);
    this.timeout = timeout;
  }

  /** Every pod's resources now; a gRPC {@code StatusRuntimeException} when the kubelet fails. */
  public ListPodResourcesResponse list() {
    return PodResourcesListerGrpc.newBlockingStub(channel)
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .list(ListPodResourcesRequest.getDefaultInstance());
  }

  public Path socket() {
    return socket;
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}

package io.gpuoperator.node.exporter;

import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.ContainerDevices;
import io.gpuoperator.kubelet.podresources.v1.ContainerResources;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A kubelet pod-resources server on a real Unix socket, answering {@code List} with what the test
 * sets: the exporter's collaborator, over the real gRPC protocol.
 */
final class PodResourcesStub implements AutoCloseable {
  private final AtomicReference<ListPodResourcesResponse> answer =
      new AtomicReference<>(ListPodResourcesResponse.getDefaultInstance());
  private final Server server;
  private final Path socket;

  PodResourcesStub(Path socket) throws IOException {
    this.socket = socket;
    this.server =
        UnixSockets.serve(
            socket,
            new PodResourcesListerGrpc.PodResourcesListerImplBase() {
              @Override
              public void list(
                  ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
                out.onNext(answer.get());
                out.onCompleted();
              }
            });
  }

  Path socket() {
    return socket;
  }

  void set(ListPodResourcesResponse response) {
    answer.set(response);
  }

  /** A pod with one container holding devices of one resource. */
  static PodResources pod(
      String namespace, String name, String container, String resource, List<String> ids) {
    return PodResources.newBuilder()
        .setName(name)
        .setNamespace(namespace)
        .addContainers(
            ContainerResources.newBuilder()
                .setName(container)
                .addDevices(
                    ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(ids)))
        .build();
  }

  static ListPodResourcesResponse of(PodResources... pods) {
    return ListPodResourcesResponse.newBuilder().addAllPodResources(List.of(pods)).build();
  }

  @Override
  public void close() {
    server.shutdownNow();
  }
}

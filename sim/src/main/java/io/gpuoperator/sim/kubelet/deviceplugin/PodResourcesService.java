package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.podresources.v1.AllocatableResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.AllocatableResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.ContainerDevices;
import io.gpuoperator.kubelet.podresources.v1.ContainerResources;
import io.gpuoperator.kubelet.podresources.v1.GetPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.GetPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import io.gpuoperator.kubelet.podresources.v1.NUMANode;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.gpuoperator.kubelet.podresources.v1.TopologyInfo;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The kubelet's pod-resources v1 service, answered from the device manager's assignments. */
final class PodResourcesService extends PodResourcesListerGrpc.PodResourcesListerImplBase {
  private final KubeletDeviceManager manager;

  PodResourcesService(KubeletDeviceManager manager) {
    this.manager = manager;
  }

  @Override
  public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
    var response = ListPodResourcesResponse.newBuilder();
    pods().values().forEach(p -> response.addPodResources(p.build()));
    out.onNext(response.build());
    out.onCompleted();
  }

  @Override
  public void get(GetPodResourcesRequest request, StreamObserver<GetPodResourcesResponse> out) {
    PodResources.Builder pod = pods().get(request.getPodNamespace() + "/" + request.getPodName());
    if (pod != null) {
      out.onNext(GetPodResourcesResponse.newBuilder().setPodResources(pod.build()).build());
      out.onCompleted();
      return;
    }
    out.onError(
        Status.NOT_FOUND
            .withDescription(
                "pod "
                    + request.getPodName()
                    + " in namespace "
                    + request.getPodNamespace()
                    + " not found")
            .asRuntimeException());
  }

  @Override
  public void getAllocatableResources(
      AllocatableResourcesRequest request, StreamObserver<AllocatableResourcesResponse> out) {
    var response = AllocatableResourcesResponse.newBuilder();
    manager
        .allocatableDevices()
        .forEach(
            (resource, devices) -> {
              for (Device d : devices) {
                response.addDevices(
                    containerDevices(resource, List.of(d.getID()), Map.of(d.getID(), d)));
              }
            });
    out.onNext(response.build());
    out.onCompleted();
  }

  /**
   * Every pod with devices by namespace/name: device-plugin assignments, with the DRA manager's
   * prepared claims added to the containers that use them.
   */
  private Map<String, PodResources.Builder> pods() {
    Map<String, PodResources.Builder> pods = new LinkedHashMap<>();
    for (PodAssignment pod : manager.assignments()) {
      pods.put(pod.namespace() + "/" + pod.name(), toProto(pod).toBuilder());
    }
    for (var dra : manager.dynamicResources().pods()) {
      var pod =
          pods.computeIfAbsent(
              dra.namespace() + "/" + dra.name(),
              k -> PodResources.newBuilder().setName(dra.name()).setNamespace(dra.namespace()));
      dra.containers()
          .forEach(
              (container, resources) -> {
                ContainerResources.Builder c =
                    pod.getContainersBuilderList().stream()
                        .filter(b -> b.getName().equals(container))
                        .findFirst()
                        .orElseGet(() -> pod.addContainersBuilder().setName(container));
                c.addAllDynamicResources(resources);
              });
    }
    return pods;
  }

  private PodResources toProto(PodAssignment pod) {
    Map<String, ContainerResources.Builder> containers = new LinkedHashMap<>();
    for (ContainerAssignment c : pod.containers()) {
      if (c.initContainer()) {
        continue;
      }
      var builder =
          containers.computeIfAbsent(
              c.container(), name -> ContainerResources.newBuilder().setName(name));
      Map<String, Device> known = manager.devices(c.resource());
      // One entry per device, as the kubelet writes them, each with that device's NUMA node.
      for (String id : c.deviceIds()) {
        builder.addDevices(containerDevices(c.resource(), List.of(id), known));
      }
    }
    var proto = PodResources.newBuilder().setName(pod.name()).setNamespace(pod.namespace());
    containers.values().forEach(proto::addContainers);
    return proto.build();
  }

  private static ContainerDevices containerDevices(
      String resource, List<String> ids, Map<String, Device> known) {
    var builder = ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(ids);
    TopologyInfo.Builder topology = null;
    for (String id : ids) {
      Device d = known.get(id);
      if (d != null && d.hasTopology()) {
        for (var node : d.getTopology().getNodesList()) {
          if (topology == null) {
            topology = TopologyInfo.newBuilder();
          }
          topology.addNodes(NUMANode.newBuilder().setID(node.getID()));
        }
      }
    }
    if (topology != null) {
      builder.setTopology(topology);
    }
    return builder.build();
  }
}

package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.CDIDevice;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DeviceSpec;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds the Allocate answer for one container, as the original does for each device-list strategy
 * (envvar, volume-mounts, cdi-annotations, cdi-cri), device specs, MPS and the GDRCopy / GDS /
 * MOFED flags; refuses unknown IDs and over-sized shared requests with its error text. Pure: the
 * file-existence check and the annotation ID come from the caller.
 */
public final class AllocateResponseModel {
  private final ResourceSet resource;
  private final Map<String, PluginDevice> known;
  private final DevicePluginSettings settings;
  private final Predicate<String> hostFileExists;
  private final Supplier<String> responseId;

  /**
   * @param hostFileExists whether a host path (under the dev root) exists, for the optional control
   *     devices
   * @param responseId a fresh ID for the CDI annotation key (the original uses a random UUID)
   */
  public AllocateResponseModel(
      ResourceSet resource,
      DevicePluginSettings settings,
      Predicate<String> hostFileExists,
      Supplier<String> responseId) {
    this.resource = resource;
    this.known = resource.byId();
    this.settings = settings;
    this.hostFileExists = hostFileExists;
    this.responseId = responseId;
  }

  /** The response for one container's requested device IDs. */
  public ContainerAllocateResponse allocate(List<String> ids) throws AllocationRefusedException {
    List<PluginDevice> devices = new ArrayList<>();
    for (String id : ids) {
      PluginDevice d = known.get(id);
      if (d == null) {
        // The original prints the whole request as a Go slice: unknown device: [a b].
        throw new AllocationRefusedException(
            "invalid allocation request for \""
                + resource.name()
                + "\": unknown device: ["
                + String.join(" ", ids)
                + "]");
      }
      devices.add(d);
    }
    if (resource.shared() && ids.size() > 1 && settings.sharing().failRequestsGreaterThanOne()) {
      throw new AllocationRefusedException(
          "invalid allocation request for \""
              + resource.name()
              + "\": invalid request: maximum request size for shared resources is 1");
    }
    Set<String> responseIds = new LinkedHashSet<>();
    for (PluginDevice d : devices) {
      responseIds.add(settings.deviceIdStrategy() == DeviceIdStrategy.UUID ? d.uuid() : d.index());
    }
    var response = ContainerAllocateResponse.newBuilder();
    if (settings.deviceListStrategies().stream().anyMatch(DeviceListStrategy::cdi)) {
      cdi(response, responseIds);
    }
    if (settings.sharing().strategy() == SharingStrategy.MPS && settings.mpsRoot() != null) {
      mps(response);
    }
    if (settings.onlyCdi()) {
      return response.build();
    }
    List<DeviceListStrategy> strategies = settings.deviceListStrategies();
    if (strategies.contains(DeviceListStrategy.ENVVAR)) {
      response.putEnvs(PluginNames.VISIBLE_DEVICES_ENV, String.join(",", responseIds));
    }
    if (strategies.contains(DeviceListStrategy.VOLUME_MOUNTS)) {
      response.putEnvs(PluginNames.VISIBLE_DEVICES_ENV, PluginNames.VOLUME_MOUNTS_CONTAINER_ROOT);
      for (String id : responseIds) {
        response.addMounts(
            Mount.newBuilder()
                .setHostPath(PluginNames.VOLUME_MOUNTS_HOST_PATH)
                .setContainerPath(PluginNames.VOLUME_MOUNTS_CONTAINER_ROOT + "/" + id));
      }
    }
    if (settings.passDeviceSpecs()) {
      deviceSpecs(response, devices);
    }
    if (settings.gdrcopyEnabled()) {
      response.putEnvs("NVIDIA_GDRCOPY", "enabled");
    }
    if (settings.gdsEnabled()) {
      response.putEnvs("NVIDIA_GDS", "enabled");
    }
    if (settings.mofedEnabled()) {
      response.putEnvs("NVIDIA_MOFED", "enabled");
    }
    return response.build();
  }

  private void cdi(ContainerAllocateResponse.Builder response, Set<String> ids) {
    List<String> names = new ArrayList<>();
    for (String id : ids) {
      names.add(cdiName(PluginNames.CDI_CLASS, id));
    }
    if (settings.gdsEnabled()) {
      names.add(cdiName("gds", "all"));
    }
    if (settings.mofedEnabled()) {
      names.add(cdiName("mofed", "all"));
    }
    if (names.isEmpty()) {
      return;
    }
    if (settings.deviceListStrategies().contains(DeviceListStrategy.CDI_ANNOTATIONS)) {
      response.putAnnotations(
          settings.cdiAnnotationPrefix() + PluginNames.CDI_ANNOTATION_KEY + responseId.get(),
          String.join(",", names));
    }
    if (settings.deviceListStrategies().contains(DeviceListStrategy.CDI_CRI)) {
      for (String name : names) {
        response.addCdiDevices(CDIDevice.newBuilder().setName(name));
      }
    }
  }

  private static String cdiName(String cdiClass, String id) {
    return PluginNames.CDI_VENDOR + "/" + cdiClass + "=" + id;
  }

  private void mps(ContainerAllocateResponse.Builder response) {
    String pipe = PluginNames.MPS_CONTAINER_ROOT + "/" + resource.name() + "/pipe";
    response.putEnvs("CUDA_MPS_PIPE_DIRECTORY", pipe);
    response.addMounts(
        Mount.newBuilder()
            .setHostPath(settings.mpsRoot().resolve(resource.name()).resolve("pipe").toString())
            .setContainerPath(pipe));
    response.addMounts(
        Mount.newBuilder()
            .setHostPath(settings.mpsRoot().resolve("shm").toString())
            .setContainerPath(PluginNames.MPS_CONTAINER_ROOT + "/shm"));
  }

  private void deviceSpecs(ContainerAllocateResponse.Builder response, List<PluginDevice> devices) {
    Set<String> paths = new LinkedHashSet<>();
    for (String control : PluginNames.CONTROL_DEVICES) {
      if (hostFileExists.test(hostPath(control))) {
        paths.add(control);
      }
    }
    for (PluginDevice d : devices) {
      paths.addAll(d.paths());
    }
    for (String p : paths) {
      response.addDevices(
          DeviceSpec.newBuilder()
              .setContainerPath(p)
              .setHostPath(hostPath(p))
              .setPermissions("rw"));
    }
  }

  private String hostPath(String containerPath) {
    Path root = settings.devRoot() == null ? Path.of("/") : settings.devRoot();
    return root.resolve(containerPath.substring(1)).toString();
  }
}

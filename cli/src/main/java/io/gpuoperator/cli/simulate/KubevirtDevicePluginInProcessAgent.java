package io.gpuoperator.cli.simulate;

import io.gpuoperator.config.Settings;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.node.deviceplugin.DevicePluginSettings;
import io.gpuoperator.node.deviceplugin.LinkScores;
import io.gpuoperator.node.deviceplugin.PluginDevice;
import io.gpuoperator.node.deviceplugin.ResourceServer;
import io.gpuoperator.node.deviceplugin.ResourceSet;
import io.gpuoperator.node.gpu.PciDevices;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for NVIDIA's KubeVirt GPU device plugin ({@code nvidia-kubevirt-gpu-device-plugin}, its
 * image's program): reads the node's simulated sysfs as the original does, and advertises each
 * NVIDIA GPU bound to a VFIO driver (with an IOMMU group) under {@code nvidia.com/<PCI device
 * name>} and each vGPU (mdev) device under {@code nvidia.com/<vGPU type name>} ({@link
 * KubevirtResourceNames}); one resource server per resource, registered with the node's kubelet
 * over the device-plugin gRPC API by the same {@link ResourceServer} our device plugin uses. Its
 * Allocate answers are that server's (our GPU plugin's), not the original's {@code
 * PCI_RESOURCE_NVIDIA_COM_*} variables; the devices are read once, at start.
 */
public final class KubevirtDevicePluginInProcessAgent implements InProcessService {
  /** The program NVIDIA's KubeVirt device plugin image runs. */
  public static final String PROGRAM = "nvidia-kubevirt-gpu-device-plugin";

  private static final Logger LOG =
      LoggerFactory.getLogger(KubevirtDevicePluginInProcessAgent.class);

  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    SimulatedSysfs sysfs = new SimulatedSysfs(ContainerPaths.resolve(ctx, "/sys"));
    Path kubeletSocket = ctx.hostPath(DevicePluginConstants.KUBELET_SOCKET);
    DevicePluginSettings settings = DevicePluginSettings.resolve(Settings.ofEnv(Map.of()), null);
    List<ResourceServer> servers = new ArrayList<>();
    try {
      for (var r : resources(sysfs).entrySet()) {
        ResourceServer server =
            new ResourceServer(
                new ResourceSet(r.getKey(), r.getValue(), 1),
                settings,
                kubeletSocket,
                LinkScores.flat(r.getValue().size()),
                Set.of());
        servers.add(server);
        server.onHangUp(() -> reRegister(server));
        server.start();
        server.register();
        LOG.info("node {}: advertising {} x{}", ctx.nodeName(), r.getKey(), r.getValue().size());
      }
    } catch (Exception | Error e) {
      servers.forEach(ResourceServer::stop);
      throw e;
    }
    ctx.markReady();
    return () -> servers.forEach(ResourceServer::stop);
  }

  private static void reRegister(ResourceServer server) {
    try {
      server.register();
    } catch (RuntimeException e) {
      LOG.warn("resource {}: registering again failed: {}", server.resource().name(), e.toString());
    }
  }

  /** Resource name → its devices, as the original finds them in sysfs; sorted by name. */
  static Map<String, List<PluginDevice>> resources(SimulatedSysfs sysfs) throws IOException {
    Map<String, List<PluginDevice>> out = new TreeMap<>();
    List<String> gpus = sysfs.nvidiaGpus();
    for (int i = 0; i < gpus.size(); i++) {
      String gpu = gpus.get(i);
      String group = sysfs.iommuGroup(gpu);
      String driver = sysfs.driver(gpu);
      if (driver == null || !PciDevices.VFIO_DRIVERS.contains(driver) || group == null) {
        continue;
      }
      out.computeIfAbsent(
              KubevirtResourceNames.passthrough(sysfs.deviceId(gpu)), k -> new ArrayList<>())
          .add(device(gpu, i, List.of("/dev/vfio/" + group), sysfs.numaNode(gpu)));
    }
    for (SimulatedSysfs.Mdev m : sysfs.mdevDevices()) {
      out.computeIfAbsent(
              KubevirtResourceNames.vgpu(SimulatedSysfs.VGPU_NAME_PREFIX + m.type()),
              k -> new ArrayList<>())
          .add(device(m.uuid(), gpus.indexOf(m.parent()), List.of(), sysfs.numaNode(m.parent())));
    }
    return out;
  }

  private static PluginDevice device(String id, int gpuIndex, List<String> paths, int numa) {
    return new PluginDevice(id, id, Integer.toString(gpuIndex), gpuIndex, -1, -1, paths, numa, -1);
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.discovery.PciDiscovery;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * Runs {@code gpu-operator pci-discovery} in-process for a simulated node's pod: the node's {@code
 * /sys/bus/pci/devices} is written from its simulated GPUs (plus the virtio NIC every simulated
 * node has), and the real discovery reads it through the pod's hostPath mount and labels the Node.
 * Ready once the label is written; then idles until the DaemonSet controller removes the pod.
 */
public final class PciDiscoveryInProcessAgent implements InProcessAgent {
  /** The virtio network controller of every simulated node (NFD's pci-1af4). */
  private static final String VIRTIO_NIC = "0000:00:03.0";

  private final SimulatedGpuBackends backends;

  public PciDiscoveryInProcessAgent(SimulatedGpuBackends backends) {
    this.backends = backends;
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    Path devices = ctx.hostPath("/sys").resolve("bus/pci/devices");
    device(devices, VIRTIO_NIC, 0x1af4, 0x020000);
    for (GpuDevice g : backends.backend(ctx.nodeName()).devices()) {
      device(devices, sysfsAddress(g.pciBusId()), GpuDevice.NVIDIA_VENDOR_ID, g.pciClass());
    }
    String sysfs = ctx.env().getOrDefault("PCI_SYSFS_ROOT", "/sys");
    PciDiscovery.label(ctx.client(), ctx.nodeName(), ContainerPaths.resolve(ctx, sysfs));
    ctx.markReady();
    new CountDownLatch(1).await();
    return 0;
  }

  /** NVML's {@code 00000000:17:00.0} as sysfs names it: {@code 0000:17:00.0}. */
  static String sysfsAddress(String nvmlBusId) {
    String id = nvmlBusId.toLowerCase(Locale.ROOT);
    return id.length() > 12 ? id.substring(id.length() - 12) : id;
  }

  private static void device(Path devices, String address, int vendor, int classCode)
      throws IOException {
    Path d = Files.createDirectories(devices.resolve(address));
    Files.writeString(d.resolve("vendor"), String.format(Locale.ROOT, "0x%04x%n", vendor));
    Files.writeString(d.resolve("class"), String.format(Locale.ROOT, "0x%06x%n", classCode));
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.discovery.PciDiscovery;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.util.concurrent.CountDownLatch;

/**
 * Runs {@code gpu-operator pci-discovery} in-process for a simulated node's pod: the real discovery
 * reads the node's {@code /sys/bus/pci/devices} (written from its simulated GPUs when the node
 * started, {@link SimulatedSysfs}) through the pod's hostPath mount and labels the Node. Ready once
 * the label is written; then idles until the DaemonSet controller removes the pod.
 */
public final class PciDiscoveryInProcessAgent implements InProcessAgent {
  @Override
  public int run(AgentContext ctx) throws Exception {
    String sysfs = ctx.env().getOrDefault("PCI_SYSFS_ROOT", "/sys");
    PciDiscovery.label(ctx.client(), ctx.nodeName(), ContainerPaths.resolve(ctx, sysfs));
    ctx.markReady();
    new CountDownLatch(1).await();
    return 0;
  }
}

package io.gpuoperator.cli.simulate;

import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for {@code vfio-manage} of NVIDIA's k8s-driver-manager image, as the VFIO manager's
 * container runs it ({@code vfio-manage bind --all && sleep infinity}): binds every NVIDIA GPU of
 * the node to {@code vfio-pci} in the node's simulated sysfs, then is ready; when the container
 * stops it unbinds them, as the container's preStop ({@code vfio-manage unbind --all}) does.
 */
public final class VfioManagerInProcessAgent implements InProcessService {
  /** The program the VFIO manager's container runs. */
  public static final String PROGRAM = "vfio-manage";

  private static final Logger LOG = LoggerFactory.getLogger(VfioManagerInProcessAgent.class);

  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    if (!ctx.args().containsAll(List.of("bind", "--all"))) {
      throw new IllegalArgumentException(
          PROGRAM + ": expected bind --all (the VFIO manager's command), got " + ctx.args());
    }
    SimulatedSysfs sysfs = new SimulatedSysfs(ContainerPaths.resolve(ctx, "/sys"));
    List<String> gpus = bindAll(sysfs);
    LOG.info("node {}: {} NVIDIA GPUs bound to vfio-pci", ctx.nodeName(), gpus.size());
    ctx.markReady();
    return () -> unbindAll(sysfs, gpus);
  }

  /** Binds every NVIDIA GPU to vfio-pci; returns their addresses. */
  static List<String> bindAll(SimulatedSysfs sysfs) throws IOException {
    List<String> gpus = sysfs.nvidiaGpus();
    for (String gpu : gpus) {
      sysfs.bind(gpu, SimulatedSysfs.VFIO_PCI);
    }
    return gpus;
  }

  static void unbindAll(SimulatedSysfs sysfs, List<String> gpus) throws IOException {
    for (String gpu : gpus) {
      if (SimulatedSysfs.VFIO_PCI.equals(sysfs.driver(gpu))) {
        sysfs.unbind(gpu);
      }
    }
  }
}

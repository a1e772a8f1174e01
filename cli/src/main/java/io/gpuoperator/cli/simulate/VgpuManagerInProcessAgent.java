package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.sim.HardwareProfile;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for the vGPU manager's {@code nvidia-driver init} (the vGPU host driver of the
 * licensee's image): binds every NVIDIA GPU of the node to the {@code nvidia} driver and makes each
 * an mdev parent offering the GPU's vGPU types ({@link VgpuTypes}) in the node's simulated sysfs,
 * then is ready; the node's simulated GPUs are what the driver sees (the sandbox validator's
 * vgpu-manager step opens them). When the container stops, the driver goes: parents, their vGPU
 * devices and the bindings are removed.
 */
public record VgpuManagerInProcessAgent(SimulatedGpuBackends backends) implements InProcessService {
  private static final Logger LOG = LoggerFactory.getLogger(VgpuManagerInProcessAgent.class);

  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    HardwareProfile model = backends.hardware(ctx.nodeName());
    if (model == null) {
      throw new IOException("node " + ctx.nodeName() + " has no GPU for the vGPU manager");
    }
    SimulatedSysfs sysfs = new SimulatedSysfs(ContainerPaths.resolve(ctx, "/sys"));
    List<String> gpus = load(sysfs, model);
    LOG.info("node {}: vGPU manager loaded on {} GPUs", ctx.nodeName(), gpus.size());
    ctx.markReady();
    return () -> unload(sysfs, gpus);
  }

  /** Binds each NVIDIA GPU to the driver and makes it an mdev parent; returns their addresses. */
  static List<String> load(SimulatedSysfs sysfs, HardwareProfile model) throws IOException {
    List<String> gpus = sysfs.nvidiaGpus();
    for (String gpu : gpus) {
      sysfs.bind(gpu, SimulatedSysfs.NVIDIA_DRIVER);
      sysfs.addMdevParent(gpu, VgpuTypes.of(model));
    }
    return gpus;
  }

  static void unload(SimulatedSysfs sysfs, List<String> gpus) throws IOException {
    for (String gpu : gpus) {
      sysfs.removeMdevParent(gpu);
      if (SimulatedSysfs.NVIDIA_DRIVER.equals(sysfs.driver(gpu))) {
        sysfs.unbind(gpu);
      }
    }
  }
}

package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessService;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for NVIDIA's vGPU device manager ({@code nvidia-k8s-vgpu-dm}, its image's entrypoint):
 * picks the config named by the node's {@code nvidia.com/vgpu.config} label, else {@code
 * DEFAULT_VGPU_CONFIG}, from its {@code CONFIG_FILE} (the policy's ConfigMap), creates the mdev
 * devices it lays out on the node's mdev parents in the simulated sysfs, and reports {@code
 * nvidia.com/vgpu.config.state=success} or {@code failed} on the Node, as the original does. A type
 * a GPU does not offer fails the whole config before anything is changed. Applied once when the
 * container starts (a later label change is not watched; restart the pod); the vGPU devices stay
 * when it stops, as on a real node.
 */
public final class VgpuDeviceManagerInProcessAgent implements InProcessService {
  /** The program NVIDIA's vGPU device manager image runs. */
  public static final String PROGRAM = "nvidia-k8s-vgpu-dm";

  static final String CONFIG_LABEL = "nvidia.com/vgpu.config";
  static final String STATE_LABEL = "nvidia.com/vgpu.config.state";
  static final String DEFAULT_CONFIG_FILE = "/vgpu-config/config.yaml";

  private static final Logger LOG = LoggerFactory.getLogger(VgpuDeviceManagerInProcessAgent.class);

  @Override
  public AutoCloseable start(AgentContext ctx) throws Exception {
    Map<String, String> env = ctx.env();
    String file = env.getOrDefault("CONFIG_FILE", DEFAULT_CONFIG_FILE);
    Node node = ctx.client().nodes().withName(ctx.nodeName()).get();
    Map<String, String> labels =
        node == null || node.getMetadata().getLabels() == null
            ? Map.of()
            : node.getMetadata().getLabels();
    String selected = labels.get(CONFIG_LABEL);
    if (selected == null || selected.isBlank()) {
      selected = env.getOrDefault("DEFAULT_VGPU_CONFIG", "default");
    }
    SimulatedSysfs sysfs = new SimulatedSysfs(ContainerPaths.resolve(ctx, "/sys"));
    String state;
    try {
      String yaml = Files.readString(ContainerPaths.resolve(ctx, file));
      int created = apply(sysfs, VgpuLayouts.select(yaml, file, selected));
      LOG.info("node {}: vGPU config {}: {} vGPU devices", ctx.nodeName(), selected, created);
      state = "success";
    } catch (ConfigException | IOException e) {
      LOG.warn("node {}: vGPU config {} failed: {}", ctx.nodeName(), selected, e.getMessage());
      state = "failed";
    }
    ctx.client()
        .nodes()
        .resource(PatchTarget.of(Node::new, null, ctx.nodeName()))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + STATE_LABEL + "\":\"" + state + "\"}}}");
    ctx.markReady();
    return () -> {};
  }

  /**
   * Replaces the vGPU devices of every GPU an entry covers (GPU index = address order) with the
   * entry's; returns how many it created. Checks every type against its GPU first.
   */
  static int apply(SimulatedSysfs sysfs, List<VgpuLayouts.Entry> entries) throws IOException {
    List<String> gpus = sysfs.nvidiaGpus();
    for (int i = 0; i < gpus.size(); i++) {
      Map<String, ?> offered = sysfs.mdevTypes(gpus.get(i));
      for (VgpuLayouts.Entry e : entries) {
        if (!e.covers(i)) {
          continue;
        }
        for (String type : e.vgpuDevices().keySet()) {
          if (!offered.containsKey(type)) {
            throw new IOException(
                "vGPU type "
                    + type
                    + " is not supported on GPU (index="
                    + i
                    + ", address="
                    + gpus.get(i)
                    + "); it offers "
                    + offered.keySet());
          }
        }
      }
    }
    int created = 0;
    for (int i = 0; i < gpus.size(); i++) {
      String gpu = gpus.get(i);
      boolean cleared = false;
      for (VgpuLayouts.Entry e : entries) {
        if (!e.covers(i)) {
          continue;
        }
        if (!cleared) {
          sysfs.removeMdevDevices(gpu);
          cleared = true;
        }
        for (Map.Entry<String, Integer> t : e.vgpuDevices().entrySet()) {
          for (int n = 0; n < t.getValue(); n++) {
            sysfs.createMdev(gpu, t.getKey());
            created++;
          }
        }
      }
    }
    return created;
  }
}

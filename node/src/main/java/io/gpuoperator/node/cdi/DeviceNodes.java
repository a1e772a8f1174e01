package io.gpuoperator.node.cdi;

import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The device nodes a container needs for one GPU or MIG device: {@code /dev/nvidia<minor>}, plus
 * for a MIG device the capability nodes of its GPU and compute instance ({@code
 * /dev/nvidia-caps/nvidia-cap<N>}, minors from {@code /proc/driver/nvidia-caps/mig-minors}), and
 * the control nodes every GPU container needs when they exist.
 */
public final class DeviceNodes {
  /** Control nodes, passed with every device when they exist on the node. */
  public static final List<String> CONTROL =
      List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset");

  private DeviceNodes() {}

  /** The node of a whole GPU. */
  public static List<String> gpu(GpuDevice gpu) {
    return List.of("/dev/nvidia" + gpu.minor());
  }

  /**
   * The parent GPU's node and the instance capability nodes; a capability missing from {@code
   * capMinors} (keys like {@code gpu0/gi1/access}) is left out.
   */
  public static List<String> mig(GpuDevice gpu, MigDevice mig, Map<String, Integer> capMinors) {
    List<String> paths = new ArrayList<>(gpu(gpu));
    String gi = "gpu" + gpu.minor() + "/gi" + mig.gpuInstanceId();
    Integer giMinor = capMinors.get(gi + "/access");
    Integer ciMinor = capMinors.get(gi + "/ci" + mig.computeInstanceId() + "/access");
    if (giMinor != null) {
      paths.add("/dev/nvidia-caps/nvidia-cap" + giMinor);
    }
    if (ciMinor != null) {
      paths.add("/dev/nvidia-caps/nvidia-cap" + ciMinor);
    }
    return paths;
  }
}

package io.gpuoperator.sim.kubelet;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the NVIDIA container toolkit leaves on a node once it has configured it: containerd's config
 * with the {@code nvidia} runtime (the default runtime) and the {@code management.nvidia.com/gpu}
 * CDI spec. Simulated nodes whose kubelet runs no in-process toolkit agent (declared-only runners)
 * get these files from the toolkit's declared behaviour, so the real validator has something to
 * check; the simulator runs the real agent instead.
 */
public final class ToolkitFiles {
  public static final String CONTAINERD_CONFIG = "/etc/containerd/config.toml";
  public static final String CDI_SPEC =
      KubeletConstants.HOST_CDI + "/management.nvidia.com-gpu.yaml";
  static final String RUNTIME_BINARY = "/usr/local/nvidia/toolkit/nvidia-container-runtime";

  private ToolkitFiles() {}

  /** Host path to content, for a node. */
  public static Map<String, String> forNode(NodeDescription node) {
    Map<String, String> files = new LinkedHashMap<>();
    files.put(CONTAINERD_CONFIG, containerdConfig());
    files.put(CDI_SPEC, cdiSpec(node.gpus()));
    return files;
  }

  static String containerdConfig() {
    String cri = "[plugins.\"io.containerd.grpc.v1.cri\".containerd";
    return "version = 2\n\n"
        + cri
        + "]\n  default_runtime_name = \"nvidia\"\n\n"
        + cri
        + ".runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n\n"
        + cri
        + ".runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n\n"
        + cri
        + ".runtimes.nvidia.options]\n  BinaryName = \""
        + RUNTIME_BINARY
        + "\"\n";
  }

  /** One device per GPU (by index) plus {@code all}. */
  static String cdiSpec(int gpus) {
    StringBuilder all = new StringBuilder();
    StringBuilder devices = new StringBuilder();
    for (int i = 0; i < gpus; i++) {
      String node = "      - path: /dev/nvidia" + i + "\n";
      all.append(node);
      devices.append("- name: \"").append(i).append("\"\n  containerEdits:\n    deviceNodes:\n");
      devices.append(node);
    }
    return "cdiVersion: 0.5.0\nkind: management.nvidia.com/gpu\ndevices:\n"
        + devices
        + "- name: all\n  containerEdits:\n    deviceNodes:\n"
        + all
        + "      - path: /dev/nvidiactl\n"
        + "containerEdits:\n  env:\n  - NVIDIA_VISIBLE_DEVICES=void\n";
  }
}

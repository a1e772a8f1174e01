package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.CharacterDevices;
import java.util.Map;

/**
 * The character-device majors the NVIDIA kernel modules registered, as {@code /proc/devices} lists
 * them; null where that module is not loaded.
 *
 * @param gpu the GPU and control nodes' ({@code nvidia}; {@code nvidia-frontend} before driver
 *     550.40)
 * @param uvm {@code nvidia-uvm}'s
 * @param caps {@code nvidia-caps}' (the MIG capability nodes)
 */
record NvidiaMajors(Integer gpu, Integer uvm, Integer caps) {

  /**
   * The majors of the device nodes in {@code dev} ({@code nvidiactl}, {@code nvidia-uvm}, {@code
   * nvidia-caps/nvidia-cap*}), for simulated GPUs: no module registered them in {@code
   * /proc/devices}, but a simulation on a real node makes the nodes with NVIDIA's numbers; null
   * where a node is missing.
   */
  static NvidiaMajors ofNodes(java.nio.file.Path dev) {
    Integer caps = null;
    try (var s =
        java.nio.file.Files.newDirectoryStream(dev.resolve("nvidia-caps"), "nvidia-cap*")) {
      for (var p : s) {
        caps = major(p);
        break;
      }
    } catch (java.io.IOException e) {
      caps = null; // no MIG capability nodes
    }
    return new NvidiaMajors(
        major(dev.resolve("nvidiactl")), major(dev.resolve("nvidia-uvm")), caps);
  }

  /** A character device's major, or null when it is none. */
  private static Integer major(java.nio.file.Path node) {
    try {
      long rdev = (Long) java.nio.file.Files.getAttribute(node, "unix:rdev");
      return rdev == 0 ? null : (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL));
    } catch (java.io.IOException | UnsupportedOperationException e) {
      return null;
    }
  }

  /** Reads the "Character devices:" section of {@code /proc/devices} (block majors differ). */
  static NvidiaMajors parse(String procDevices) {
    Map<String, Integer> majors = CharacterDevices.parse(procDevices);
    Integer gpu = majors.getOrDefault("nvidia", majors.get("nvidia-frontend"));
    return new NvidiaMajors(gpu, majors.get("nvidia-uvm"), majors.get("nvidia-caps"));
  }
}

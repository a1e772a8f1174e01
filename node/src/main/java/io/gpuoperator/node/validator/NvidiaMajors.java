package io.gpuoperator.node.validator;

import java.util.HashMap;
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

  /** Reads the "Character devices:" section of {@code /proc/devices} (block majors differ). */
  static NvidiaMajors parse(String procDevices) {
    Map<String, Integer> majors = new HashMap<>();
    boolean character = false;
    for (String line : procDevices.split("\n")) {
      String t = line.strip();
      if (t.endsWith("devices:")) {
        character = t.equals("Character devices:");
        continue;
      }
      String[] parts = t.split("\\s+");
      if (character && parts.length == 2 && parts[0].matches("[0-9]+")) {
        majors.put(parts[1], Integer.parseInt(parts[0]));
      }
    }
    Integer gpu = majors.getOrDefault("nvidia", majors.get("nvidia-frontend"));
    return new NvidiaMajors(gpu, majors.get("nvidia-uvm"), majors.get("nvidia-caps"));
  }
}

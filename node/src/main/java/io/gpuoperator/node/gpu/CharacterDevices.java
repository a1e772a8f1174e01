package io.gpuoperator.node.gpu;

import java.util.HashMap;
import java.util.Map;

/**
 * The character-device majors the kernel lists in {@code /proc/devices} (its "Character devices:"
 * section; block majors differ), by driver name: where NVIDIA's modules tell their device nodes'
 * numbers ({@code nvidia}, {@code nvidia-uvm}, {@code nvidia-caps}, {@code
 * nvidia-caps-imex-channels}, ...).
 */
public final class CharacterDevices {
  private CharacterDevices() {}

  /** The majors by name; a name listed twice keeps its last major. */
  public static Map<String, Integer> parse(String procDevices) {
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
    return majors;
  }
}

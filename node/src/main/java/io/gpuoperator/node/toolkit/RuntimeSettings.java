package io.gpuoperator.node.toolkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the toolkit configures in a container runtime.
 *
 * @param runtimes runtime name to the binary it runs ({@code nvidia}, {@code nvidia-cdi}, {@code
 *     nvidia-legacy}), in order
 * @param defaultRuntime the runtime made the default with {@code setAsDefault}
 * @param setAsDefault make {@code defaultRuntime} the runtime's default
 * @param cdiEnabled turn on the runtime's CDI support
 * @param cdiSpecDirs CDI spec directories on the host, when CDI is on
 * @param dropInHostPath host path of the drop-in file (for containerd's {@code imports})
 */
public record RuntimeSettings(
    Map<String, String> runtimes,
    String defaultRuntime,
    boolean setAsDefault,
    boolean cdiEnabled,
    List<String> cdiSpecDirs,
    String dropInHostPath) {

  public RuntimeSettings {
    runtimes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(runtimes));
    cdiSpecDirs = List.copyOf(cdiSpecDirs);
    if (!runtimes.containsKey(defaultRuntime)) {
      throw new IllegalArgumentException(
          "runtime '" + defaultRuntime + "' is not among " + runtimes.keySet());
    }
  }

  /**
   * NVIDIA's three runtimes under {@code toolkitDir}: {@code <name>} runs {@code
   * nvidia-container-runtime}, {@code nvidia-cdi} and {@code nvidia-legacy} its {@code .cdi} and
   * {@code .legacy} variants.
   */
  public static Map<String, String> nvidiaRuntimes(String name, String toolkitDir) {
    String base = toolkitDir + "/nvidia-container-runtime";
    Map<String, String> m = new LinkedHashMap<>();
    m.put(name, base);
    m.put("nvidia-cdi", base + ".cdi");
    m.put("nvidia-legacy", base + ".legacy");
    return m;
  }
}

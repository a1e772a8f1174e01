package io.gpuoperator.node.toolkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the toolkit configures in a container runtime.
 *
 * @param runtimes runtime name to the binary it runs ({@code nvidia}, {@code nvidia-cdi}, {@code
 *     nvidia-legacy}), in order; an empty binary keeps the base runtime's own (runc's), for nodes
 *     without NVIDIA's runtime binaries
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

  /** NVIDIA's runtime binary, in the toolkit directory ({@code <toolkit root>/toolkit}). */
  public static final String NVIDIA_RUNTIME = "nvidia-container-runtime";

  /**
   * NVIDIA's three runtimes under {@code toolkitDir}: {@code <name>} runs {@code
   * nvidia-container-runtime}, {@code nvidia-cdi} and {@code nvidia-legacy} its {@code .cdi} and
   * {@code .legacy} variants. Without NVIDIA's binaries ({@code installed} false) the three names
   * run the base runtime's binary: pods of the runtime classes start, and get GPUs only through CDI
   * (the device plugin's and DRA driver's CDI devices, which containerd and CRI-O inject).
   */
  public static Map<String, String> nvidiaRuntimes(
      String name, String toolkitDir, boolean installed) {
    String base = toolkitDir + "/" + NVIDIA_RUNTIME;
    Map<String, String> m = new LinkedHashMap<>();
    m.put(name, installed ? base : "");
    m.put("nvidia-cdi", installed ? base + ".cdi" : "");
    m.put("nvidia-legacy", installed ? base + ".legacy" : "");
    return m;
  }
}

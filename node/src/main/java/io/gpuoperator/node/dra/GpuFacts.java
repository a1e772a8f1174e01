package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.GpuFamily;
import java.util.Locale;

/** How NVIDIA's DRA driver writes a GPU's facts as attribute values. */
final class GpuFacts {
  private GpuFacts() {}

  /**
   * The architecture, capitalised as NVIDIA's driver publishes it ({@code Hopper}, {@code Ada
   * Lovelace}), from the same compute-capability table feature discovery labels {@code
   * nvidia.com/gpu.family} with.
   */
  static String architecture(int major, int minor) {
    String family = GpuFamily.of(major, minor);
    StringBuilder out = new StringBuilder();
    for (String word : family.split("-")) {
      if (!out.isEmpty()) {
        out.append(' ');
      }
      out.append(word.substring(0, 1).toUpperCase(Locale.ROOT)).append(word.substring(1));
    }
    return out.toString();
  }

  /**
   * The product brand. NVML's {@code nvmlDeviceGetBrand} is not in the GPU backend; datacenter GPUs
   * (every profile the simulator has) report NVML's "NVIDIA" brand, written {@code Nvidia} by
   * NVIDIA's driver; the consumer lines are recognised by name.
   */
  static String brand(String productName) {
    String name = productName.toLowerCase(Locale.ROOT);
    if (name.contains("geforce")) {
      return "GeForce";
    }
    if (name.contains("quadro")) {
      return "Quadro";
    }
    if (name.contains("titan")) {
      return "Titan";
    }
    return "Nvidia";
  }

  /**
   * A version attribute: semantic versioning without leading zeros, padded to three parts ({@code
   * 580.95.05} becomes {@code 580.95.5}, {@code 9.0} becomes {@code 9.0.0}), as the API server
   * requires for {@code version} attributes.
   */
  static String semver(String version) {
    String[] parts = version.trim().split("\\.");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      if (i > 0) {
        out.append('.');
      }
      String p = i < parts.length ? parts[i].replaceAll("[^0-9].*$", "") : "0";
      out.append(p.isEmpty() ? 0 : Long.parseLong(p));
    }
    return out.toString();
  }

  /** NVML's encoded CUDA version (12040) as a semantic version ({@code 12.4.0}). */
  static String cudaVersion(int encoded) {
    return (encoded / 1000) + "." + (encoded % 1000 / 10) + ".0";
  }

  /**
   * A DNS-label form of a MIG profile name for device names: {@code 1g.10gb} becomes {@code
   * 1g10gb}, {@code 1g.10gb+me} becomes {@code 1g10gbme}.
   */
  static String profileLabel(String profile) {
    return profile.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
  }
}

package io.gpuoperator.node.gpu;

/**
 * The architecture family of a compute capability, named as the original names it: the value of the
 * {@code nvidia.com/gpu.family} label and of the DRA plugin's {@code architecture} attribute.
 */
public final class GpuFamily {
  private GpuFamily() {}

  /** The original's architecture family of a compute capability. */
  public static String of(int major, int minor) {
    return switch (major) {
      case 1 -> "tesla";
      case 2 -> "fermi";
      case 3 -> "kepler";
      case 5 -> "maxwell";
      case 6 -> "pascal";
      case 7 -> minor < 5 ? "volta" : "turing";
      case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
      case 9 -> "hopper";
      case 10, 12 -> "blackwell";
      case 13 -> "rubin";
      default -> "undefined";
    };
  }
}

package io.gpuoperator.node.gpu.nvml;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A driver installation as this process sees it (a driver container's rootfs at {@code
 * /run/nvidia/driver}, the host's {@code /} mounted at {@code /host}): where it keeps NVML and
 * {@code nvidia-smi}. Links are followed as this process sees them, as the validator has always
 * looked up NVML.
 *
 * @param dir the root, as mounted here
 */
public record DriverRoot(Path dir) {
  /** Where driver installations put NVML, relative to their root. */
  public static final List<String> LIBRARY_DIRS =
      List.of(
          "usr/lib64",
          "usr/lib/x86_64-linux-gnu",
          "usr/lib/x86_64-linux-gnu/nvidia/current",
          "usr/lib/aarch64-linux-gnu",
          "lib64",
          "lib/x86_64-linux-gnu",
          "usr/lib");

  /**
   * Where {@code nvidia-smi} is looked for, relative to the root: the root itself, then the
   * directories NVIDIA's validator and MIG manager search.
   */
  public static final List<String> BINARY_DIRS = List.of("", "usr/bin", "usr/sbin", "bin", "sbin");

  /** The root's {@code libnvidia-ml.so.1}, in the first library directory that has it. */
  public Optional<Path> nvml() {
    return first(LIBRARY_DIRS, NvmlBackend.LIBRARY, Files::exists);
  }

  /**
   * The root's {@code nvidia-smi}: the first executable file of that name in {@link #BINARY_DIRS}.
   */
  public Optional<Path> nvidiaSmi() {
    return first(BINARY_DIRS, NvidiaSmi.NAME, NvidiaSmi::isExecutableFile);
  }

  /**
   * The first {@code name} under the root's {@code dirs}, in order, that {@code usable} accepts.
   */
  private Optional<Path> first(List<String> dirs, String name, Predicate<Path> usable) {
    return dirs.stream().map(d -> dir.resolve(d).resolve(name)).filter(usable).findFirst();
  }

  @Override
  public String toString() {
    return dir.toString();
  }
}

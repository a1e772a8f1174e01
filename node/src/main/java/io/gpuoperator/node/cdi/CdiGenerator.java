package io.gpuoperator.node.cdi;

import io.gpuoperator.node.files.ConfinedRoot;
import io.gpuoperator.node.files.RootedPath;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuInventory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates the NVIDIA CDI spec of this node: reads the GPUs from the backend and the driver's
 * files from the driver root (as this process sees it), and writes host paths into the spec.
 *
 * @param driverRoot where this process reads the driver root (e.g. {@code /driver-root} in a
 *     container)
 * @param devRoot where this process reads the dev root
 * @param migMinors {@code /proc/driver/nvidia-caps/mig-minors} as this process sees it (may be
 *     absent)
 * @param options what to generate, with the host paths of both roots
 */
public record CdiGenerator(
    Path driverRoot, Path devRoot, Path migMinors, NvidiaCdiModel.Options options) {

  /** The spec and what was not found (for a warning). */
  public record Result(CdiSpec spec, List<String> warnings) {}

  /**
   * Generates the spec; fails when the driver root does not exist, and when a device node or file
   * the spec would name leads out of its root ({@link CdiSpecConfinement}).
   */
  public Result generate(GpuBackend gpus) throws IOException {
    if (!Files.isDirectory(driverRoot)) {
      throw new IOException("driver root " + driverRoot + " is not a directory");
    }
    RootedPath root = new RootedPath(driverRoot);
    String version = gpus.driverVersion();
    DriverFiles files = DriverFiles.scan(root, version);
    List<String> warnings = new ArrayList<>();
    if (!files.hasLibrary("libcuda")) {
      warnings.add(
          "no libcuda.so."
              + version
              + " under driver root "
              + driverRoot
              + " (looked in "
              + String.join(", ", DriverFiles.LIBRARY_DIRS)
              + "): containers get device nodes but no CUDA driver library");
    }
    RootedPath dev = Files.isDirectory(devRoot) ? new RootedPath(devRoot) : null;
    GpuInventory inventory = GpuInventory.read(gpus, migMinors);
    CdiSpec spec =
        NvidiaCdiModel.build(
            inventory,
            files,
            options,
            p -> dev == null ? java.util.Optional.empty() : dev.resolve(p).map(dev::inRoot));
    // A GPU node that does not resolve in the dev root is named as the driver reported it; if a
    // link stands there (a hostile root's /dev/nvidia0 -> /dev/sda), this is where it stops.
    CdiSpecConfinement.check(
        spec,
        new ConfinedRoot("dev root", options.devRoot(), devRoot),
        new ConfinedRoot("driver root", options.driverRoot(), driverRoot));
    return new Result(spec, warnings);
  }
}

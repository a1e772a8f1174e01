package io.gpuoperator.node.cdi;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.nvml.DriverRoot;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The GPU backend of the CDI generator and the toolkit: {@code nvml} loads {@code
 * libnvidia-ml.so.1} (the given file, else the driver root's, else the loader's search path);
 * {@code simulated} reads a node profile (built-in name or file, else {@code node-profile.yaml} in
 * the driver root, where a simulated driver installation keeps it).
 *
 * @param backend nvml or simulated
 * @param nodeProfile simulated node profile, or null
 * @param nvmlLibrary libnvidia-ml.so.1 to load, or null
 * @param nodeName the node, for simulated UUIDs
 */
public record GpuBackendChoice(
    String backend, String nodeProfile, String nvmlLibrary, String nodeName) {

  public GpuBackendChoice {
    backend = backend == null ? "nvml" : backend;
    if (!backend.equals("nvml") && !backend.equals("simulated")) {
      throw new IllegalArgumentException(
          "unknown backend '" + backend + "' (expected nvml or simulated)");
    }
  }

  /** Opens the backend for a driver installed under {@code driverRoot}. */
  public GpuBackend open(Path driverRoot) {
    if (backend.equals("simulated")) {
      String node = nodeName == null ? "localhost" : nodeName;
      if (nodeProfile != null) {
        return new SimulatedBackend(HardwareProfiles.node(nodeProfile), node);
      }
      Path file = driverRoot.resolve(HardwareProfiles.DRIVER_ROOT_PROFILE);
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "simulated backend: no --node-profile and no "
                + file
                + " (pass --node-profile NAME|FILE)");
      }
      return new SimulatedBackend(HardwareProfiles.loadNode(file), node);
    }
    Path lib =
        nvmlLibrary != null ? Path.of(nvmlLibrary) : new DriverRoot(driverRoot).nvml().orElse(null);
    return NvmlBackend.open(lib, Path.of("/sys"));
  }
}

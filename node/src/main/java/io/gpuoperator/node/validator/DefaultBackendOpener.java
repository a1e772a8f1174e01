package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The backend chosen by {@code --backend}: {@code simulated} reads a node profile (the flag's file,
 * or {@code node-profile.yaml} in the driver root: a simulated driver installation); {@code nvml}
 * loads {@code libnvidia-ml.so.1} from the driver root's library directories and initialises it.
 */
public final class DefaultBackendOpener implements GpuBackendOpener {
  /** A simulated driver root holds the node's hardware description under this name. */
  public static final String SIMULATED_PROFILE_FILE = "node-profile.yaml";

  private final ValidatorConfig config;

  public DefaultBackendOpener(ValidatorConfig config) {
    this.config = config;
  }

  @Override
  public GpuBackend open(Path driverRoot) throws Exception {
    if (config.backend().equals("simulated")) {
      Path profile =
          config.nodeProfile() != null
              ? config.nodeProfile()
              : driverRoot.resolve(SIMULATED_PROFILE_FILE);
      if (!Files.isRegularFile(profile)) {
        throw new ValidationException(
            "simulated backend: no node profile at "
                + profile
                + " (pass --node-profile or install it in the driver root)");
      }
      String node = config.nodeName() == null ? "localhost" : config.nodeName();
      return new SimulatedBackend(HardwareProfiles.loadNode(profile), node);
    }
    Path library = findNvml(driverRoot);
    if (library == null && !config.hostDriver()) {
      throw new ValidationException(
          "driver at "
              + driverRoot
              + ": no "
              + NvmlBackend.LIBRARY
              + " in "
              + String.join(", ", LIBRARY_DIRS)
              + " (is the driver installed there?)");
    }
    // A host driver may live anywhere on the loader's path: null lets the loader search.
    return NvmlBackend.open(library, SYSFS);
  }

  /** Where driver installations put NVML, relative to their root. */
  static final List<String> LIBRARY_DIRS =
      List.of(
          "usr/lib64",
          "usr/lib/x86_64-linux-gnu",
          "usr/lib/x86_64-linux-gnu/nvidia/current",
          "usr/lib/aarch64-linux-gnu",
          "lib64",
          "lib/x86_64-linux-gnu",
          "usr/lib");

  private static final Path SYSFS = Path.of("/sys");

  public static Path findNvml(Path driverRoot) {
    for (String dir : LIBRARY_DIRS) {
      Path candidate = driverRoot.resolve(dir).resolve(NvmlBackend.LIBRARY);
      if (Files.exists(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}

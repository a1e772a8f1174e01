package io.gpuoperator.node.validator;

import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.nvml.DriverRoot;
import io.gpuoperator.node.gpu.nvml.NvmlBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The backend the settings choose, opened the way every node agent opens it ({@link
 * NodeAgentOptions#openBackend}), with the validator's defaults: {@code simulated} reads the named
 * node profile or {@code node-profile.yaml} in the driver root (a simulated driver installation);
 * {@code nvml} loads {@code libnvidia-ml.so.1} from the driver root's library directories.
 */
public final class DefaultBackendOpener implements GpuBackendOpener {
  private final ValidatorConfig config;
  private final Settings settings;

  public DefaultBackendOpener(ValidatorConfig config, Settings settings) {
    this.config = config;
    this.settings = settings;
  }

  /** For tests: the settings of an environment. */
  public DefaultBackendOpener(ValidatorConfig config) {
    this(config, Settings.ofEnv(java.util.Map.of()));
  }

  @Override
  public GpuBackend open(Path driverRoot) throws Exception {
    Path library = null;
    if (!config.backend().equals("simulated")) {
      library = settings.get(NodeAgentOptions.NVML_LIBRARY);
      if (library == null) {
        library = findNvml(driverRoot);
      }
      if (library == null && !config.hostDriver()) {
        throw new ValidationException(
            "driver at "
                + driverRoot
                + ": no "
                + NvmlBackend.LIBRARY
                + " in "
                + String.join(", ", DriverRoot.LIBRARY_DIRS)
                + " (is the driver installed there?)");
      }
    }
    Path installed = driverRoot.resolve(HardwareProfiles.DRIVER_ROOT_PROFILE);
    if (config.backend().equals("simulated")
        && config.nodeProfile() == null
        && !Files.isRegularFile(installed)) {
      throw new ValidationException(
          "simulated backend: no node profile at "
              + installed
              + " (pass --node-profile or install it in the driver root)");
    }
    // A host driver may live anywhere on the loader's path: a null library lets the loader search.
    return NodeAgentOptions.openBackend(
        config.backend(),
        library,
        SYSFS,
        () ->
            config.nodeProfile() != null
                ? NodeAgentOptions.namedProfile(
                    config.nodeProfile(), settings.resolve(NodeAgentOptions.NODE_PROFILE).origin())
                : HardwareProfiles.loadNode(installed),
        config.nodeName());
  }

  private static final Path SYSFS = Path.of("/sys");

  /** The driver root's {@code libnvidia-ml.so.1}, or null ({@link DriverRoot#nvml}). */
  public static Path findNvml(Path driverRoot) {
    return new DriverRoot(driverRoot).nvml().orElse(null);
  }
}

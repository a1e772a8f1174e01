package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The backend chosen by {@code --backend}: {@code simulated} reads a node profile (the flag's file,
 * or {@code node-profile.yaml} in the driver root: a simulated driver installation); {@code nvml}
 * needs the NVML binding, which this build does not contain yet.
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
    throw new ValidationException(
        "backend nvml: the NVML binding is not part of this build; use --backend simulated");
  }
}

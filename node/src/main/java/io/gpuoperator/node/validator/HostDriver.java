package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.nvml.DriverRoot;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the driver is, decided as the original validator decides it: a driver pre-installed on the
 * host wins, and only without one does validation wait for a driver container at the driver root. A
 * driver root given explicitly ({@code NVIDIA_DRIVER_ROOT}, {@code --driver-root}) is kept.
 */
final class HostDriver {
  private static final Logger LOG = LoggerFactory.getLogger(HostDriver.class);

  /** Where the validator's pods mount the host's {@code /}. */
  static final Path HOST_ROOT_MOUNT = Path.of("/host");

  private HostDriver() {}

  /**
   * The configuration with the driver root {@code /} when the host holds a driver: NVML's library
   * or {@code nvidia-smi} under {@code hostRoot} (the original runs the host's nvidia-smi), or, for
   * simulated hardware named by a node profile, always (no driver container simulates it).
   */
  static ValidatorConfig resolve(ValidatorConfig config, boolean rootGiven, Path hostRoot) {
    if (rootGiven || config.hostDriver()) {
      return config;
    }
    String found = found(config, hostRoot);
    if (found == null) {
      return config;
    }
    LOG.info("a driver pre-installed on the host: {}", found);
    return config.withDriverRoot(Path.of("/"));
  }

  /** What shows a host driver, or null. */
  private static String found(ValidatorConfig config, Path hostRoot) {
    if ("simulated".equals(config.backend())) {
      return config.nodeProfile() == null ? null : "simulated GPUs of " + config.nodeProfile();
    }
    DriverRoot host = new DriverRoot(hostRoot);
    return host.nvidiaSmi()
        .or(host::nvml)
        .map(p -> p + " (the host's / at " + hostRoot + ")")
        .orElse(null);
  }
}

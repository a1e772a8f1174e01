package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The driver step: the GPU backend initialises from the driver root and sees at least one GPU. Its
 * marker holds KEY=VALUE lines that the toolkit, device plugin and MIG manager source.
 */
final class DriverValidation {
  private static final Path HOST_ROOT = Path.of("/");

  private final ValidatorConfig config;
  private final GpuBackendOpener opener;

  DriverValidation(ValidatorConfig config, GpuBackendOpener opener) {
    this.config = config;
    this.opener = opener;
  }

  /** Returns the content of driver-ready. */
  String validate() throws ValidationException {
    GpuBackend backend;
    try {
      backend = opener.open(config.driverRoot());
    } catch (ValidationException e) {
      throw e;
    } catch (Exception e) {
      throw new ValidationException(
          "driver at "
              + config.driverRoot()
              + ": the GPU backend did not initialise: "
              + e.getMessage(),
          e);
    }
    try {
      List<GpuDevice> devices = backend.devices();
      if (devices.isEmpty()) {
        throw new ValidationException(
            "driver at " + config.driverRoot() + " (" + backend.kind() + "): no GPU found");
      }
      String root = config.driverRoot().toString();
      String ctrPath = config.hostDriver() ? "/host" : root;
      Path devRoot = devRoot(config);
      return "IS_HOST_DRIVER="
          + config.hostDriver()
          + "\nNVIDIA_DRIVER_ROOT="
          + root
          + "\nDRIVER_ROOT_CTR_PATH="
          + ctrPath
          + "\nNVIDIA_DEV_ROOT="
          + devRoot
          + "\nDEV_ROOT_CTR_PATH="
          + (devRoot.equals(HOST_ROOT) ? "/host" : root)
          + "\nDRIVER_VERSION="
          + backend.driverVersion()
          + "\nGPU_COUNT="
          + devices.size()
          + "\n";
    } catch (RuntimeException e) {
      throw new ValidationException(
          "driver at " + config.driverRoot() + ": querying GPUs failed: " + e.getMessage(), e);
    } finally {
      opener.release(backend);
    }
  }

  /**
   * Where the device nodes are on the host, by the original's rule: a host driver's in {@code
   * /dev}; a driver container's in its root's {@code dev} when the root has one, else in the
   * host's.
   */
  static Path devRoot(ValidatorConfig config) {
    Path root = config.driverRoot();
    return !config.hostDriver() && Files.isDirectory(root.resolve("dev")) ? root : HOST_ROOT;
  }
}

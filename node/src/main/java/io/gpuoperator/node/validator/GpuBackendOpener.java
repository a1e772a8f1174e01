package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import java.nio.file.Path;

/** Opens the GPU backend of a driver installed at a root; the driver check's only dependency. */
public interface GpuBackendOpener {

  /** Initialises the backend; any exception means the driver is not usable. */
  GpuBackend open(Path driverRoot) throws Exception;

  /**
   * Opens the backend of the driver at {@code driverRoot} for the check named {@code what}
   * ("driver", "vGPU manager"): a failure becomes a ValidationException that names the check and
   * the root.
   */
  default GpuBackend openFor(String what, Path driverRoot) throws ValidationException {
    try {
      return open(driverRoot);
    } catch (ValidationException e) {
      throw e;
    } catch (Exception e) {
      throw new ValidationException(
          what + " at " + driverRoot + ": the GPU backend did not initialise: " + e.getMessage(),
          e);
    }
  }

  /** Gives the backend back after the check; closes it unless the opener shares it. */
  default void release(GpuBackend backend) {
    backend.close();
  }
}

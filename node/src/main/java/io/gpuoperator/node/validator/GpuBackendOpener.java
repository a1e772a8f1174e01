package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import java.nio.file.Path;

/** Opens the GPU backend of a driver installed at a root; the driver check's only dependency. */
public interface GpuBackendOpener {

  /** Initialises the backend; any exception means the driver is not usable. */
  GpuBackend open(Path driverRoot) throws Exception;

  /** Gives the backend back after the check; closes it unless the opener shares it. */
  default void release(GpuBackend backend) {
    backend.close();
  }
}

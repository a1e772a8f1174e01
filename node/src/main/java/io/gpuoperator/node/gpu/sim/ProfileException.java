package io.gpuoperator.node.gpu.sim;

import io.gpuoperator.config.ConfigException;

/** A hardware or node profile that cannot be used; the message names file, line and field. */
public class ProfileException extends ConfigException {
  private static final long serialVersionUID = 1L;

  public ProfileException(String message) {
    super(message);
  }

  public ProfileException(String message, Throwable cause) {
    super(message, cause);
  }
}

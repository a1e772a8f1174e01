package io.gpuoperator.node.gpu.sim;

/** A hardware or node profile that cannot be used; the message names file, line and field. */
public class ProfileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ProfileException(String message) {
    super(message);
  }

  public ProfileException(String message, Throwable cause) {
    super(message, cause);
  }
}

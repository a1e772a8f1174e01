package io.gpuoperator.config;

/**
 * A failure of the environment rather than of the input: an API server that does not answer, a
 * driver that is not installed, a directory that cannot be written. The message is one line that
 * says what failed, on which input, and what to do. Commands exit with {@link
 * io.gpuoperator.config.cli.ExitCodes#FAILED} on it.
 */
public class EnvironmentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EnvironmentException(String message) {
    super(message);
  }

  public EnvironmentException(String message, Throwable cause) {
    super(message, cause);
  }
}

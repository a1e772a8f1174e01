package io.gpuoperator.node.toolkit;

/**
 * A runtime config the toolkit will not change: unreadable, not valid, or of an unknown version.
 */
public class ConfigFileException extends Exception {
  public ConfigFileException(String message) {
    super(message);
  }

  public ConfigFileException(String message, Throwable cause) {
    super(message, cause);
  }
}

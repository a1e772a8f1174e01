package io.gpuoperator.node.config;

/** A configuration file or setting that cannot be used; the message names where and why. */
public class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}

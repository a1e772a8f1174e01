package io.gpuoperator.config;

/**
 * Input that cannot be used: a flag, an environment variable, a file or a field in it. The message
 * is one line that starts with where the value came from ({@code --mig-strategy: …}, {@code
 * MIG_STRATEGY: …}, {@code config.yaml:3:7 flags.migStrategy: …}) and says what was expected.
 * Commands exit with {@link io.gpuoperator.config.cli.ExitCodes#BAD_INPUT} on it.
 */
public class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}

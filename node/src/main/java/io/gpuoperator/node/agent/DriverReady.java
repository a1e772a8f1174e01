package io.gpuoperator.node.agent;

import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.IoErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The validator's {@code driver-ready} marker: {@code KEY=VALUE} lines saying where this node's
 * driver is ({@code IS_HOST_DRIVER}, {@code NVIDIA_DRIVER_ROOT}, {@code DRIVER_ROOT_CTR_PATH},
 * {@code NVIDIA_DEV_ROOT}, {@code DEV_ROOT_CTR_PATH}, {@code DRIVER_VERSION}, {@code GPU_COUNT}).
 * The driver step writes it once it has found the driver; the original's toolkit, device plugin and
 * MIG manager entrypoints source it over their DaemonSet's env ({@code set -o allexport; .
 * driver-ready}), and our agents take it the same way through {@link #overlay}: a DaemonSet can
 * only guess the driver root (the driver container's {@code /run/nvidia/driver}), the validator
 * knows it (a pre-installed driver is at {@code /}).
 */
public final class DriverReady {
  /** The variable naming the marker, when it is not at {@link #DEFAULT_FILE}. */
  public static final String FILE_ENV = "DRIVER_READY_FILE";

  /** Where the validator writes it (the validations hostPath every operand mounts). */
  public static final Path DEFAULT_FILE = Path.of("/run/nvidia/validations/driver-ready");

  private DriverReady() {}

  /** The marker's content for these values, one {@code KEY=VALUE} line each, in order. */
  public static String format(Map<String, String> values) {
    StringBuilder out = new StringBuilder();
    values.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
    return out.toString();
  }

  /**
   * The marker's values; empty when there is none (no validator ran, or outside a cluster).
   *
   * @throws EnvironmentException when it exists but cannot be read
   */
  public static Map<String, String> read(Path file) {
    Map<String, String> out = new LinkedHashMap<>();
    if (file == null || !Files.isRegularFile(file)) {
      return out;
    }
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (eq > 0 && !line.startsWith("#")) {
          out.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
      }
    } catch (IOException e) {
      throw new EnvironmentException("cannot read " + IoErrors.explain(e), e);
    }
    return out;
  }

  /**
   * {@code env} with the marker's values over it, as the original's entrypoints source the marker
   * after the DaemonSet's env: the marker is at {@link #FILE_ENV}, else {@link #DEFAULT_FILE};
   * without one, {@code env} as it is.
   */
  public static Map<String, String> overlay(Map<String, String> env) {
    String named = env.get(FILE_ENV);
    Map<String, String> values =
        read(named == null || named.isBlank() ? DEFAULT_FILE : Path.of(named));
    if (values.isEmpty()) {
      return env;
    }
    Map<String, String> out = new HashMap<>(env);
    out.putAll(values);
    return out;
  }

  /** {@code IS_HOST_DRIVER} of the marker at {@code file}; false when there is none. */
  public static boolean isHostDriver(Path file) {
    return Boolean.parseBoolean(read(file).getOrDefault("IS_HOST_DRIVER", "false"));
  }
}

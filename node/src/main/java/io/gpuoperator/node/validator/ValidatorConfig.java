package io.gpuoperator.node.validator;

import static io.gpuoperator.node.validator.ValidatorEnv.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Settings of one validator run, parsed from an environment map (tests pass a map) and then
 * overridden by command-line flags.
 *
 * @param component the step to run; null when neither flag nor env names one
 * @param withWait wait for the previous step's marker first
 * @param driverRoot where the driver is installed; {@code /} means a host-installed driver
 * @param backend {@code nvml} or {@code simulated}
 * @param nodeProfile node profile of the simulated backend; null: {@code
 *     <driverRoot>/node-profile.yaml}
 * @param runtime containerd, crio or docker
 * @param timeout for waits and polls; zero waits for markers forever
 */
public record ValidatorConfig(
    Component component,
    boolean withWait,
    String nodeName,
    Path validationsDir,
    Path driverRoot,
    String backend,
    Path nodeProfile,
    String runtime,
    Path runtimeConfig,
    Path runtimeDropInConfig,
    String runtimeName,
    boolean cdiEnabled,
    Path cdiDir,
    String namespace,
    String cudaImage,
    Duration timeout,
    Duration poll) {

  /** Reads every setting from the environment map, with the original's defaults. */
  public static ValidatorConfig fromEnv(Map<String, String> env) {
    String component = env.get(COMPONENT);
    return new ValidatorConfig(
        component == null || component.isBlank() ? null : Component.parse(component),
        bool(env, WITH_WAIT, false),
        env.get(NODE_NAME),
        Path.of(env.getOrDefault(VALIDATIONS_DIR, DEFAULT_VALIDATIONS_DIR)),
        Path.of(env.getOrDefault(NVIDIA_DRIVER_ROOT, DEFAULT_DRIVER_ROOT)),
        backend(env.getOrDefault(GPU_BACKEND, "nvml"), GPU_BACKEND),
        path(env.getOrDefault(NODE_PROFILE, env.get(NODE_PROFILE_LEGACY))),
        runtime(env.getOrDefault(RUNTIME, "containerd")),
        Path.of(env.getOrDefault(RUNTIME_CONFIG, DEFAULT_RUNTIME_CONFIG)),
        path(
            env.getOrDefault(
                RUNTIME_DROP_IN_CONFIG,
                env.getOrDefault(RUNTIME, "containerd").equals("containerd")
                    ? DEFAULT_RUNTIME_DROP_IN_CONFIG
                    : null)),
        env.getOrDefault(NVIDIA_RUNTIME_NAME, "nvidia"),
        bool(env, CDI_ENABLED, true),
        Path.of(env.getOrDefault(CDI_SPEC_DIR, DEFAULT_CDI_DIR)),
        env.getOrDefault(OPERATOR_NAMESPACE, DEFAULT_NAMESPACE),
        env.getOrDefault(CUDA_WORKLOAD_IMAGE, DEFAULT_CUDA_IMAGE),
        seconds(env, VALIDATION_TIMEOUT, 300),
        seconds(env, SLEEP_INTERVAL, 5));
  }

  /** Whether the driver is installed on the host rather than by the driver container. */
  public boolean hostDriver() {
    return driverRoot.toString().equals("/");
  }

  static String backend(String value, String where) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (!v.equals("nvml") && !v.equals("simulated")) {
      throw new IllegalArgumentException(
          where + ": expected nvml or simulated, got '" + value + "'");
    }
    return v;
  }

  static String runtime(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (!v.equals("containerd") && !v.equals("crio") && !v.equals("docker")) {
      throw new IllegalArgumentException(
          RUNTIME + ": expected containerd, crio or docker, got '" + value + "'");
    }
    return v;
  }

  private static Path path(String value) {
    return value == null || value.isBlank() ? null : Path.of(value);
  }

  private static boolean bool(Map<String, String> env, String key, boolean dflt) {
    String v = env.get(key);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default ->
          throw new IllegalArgumentException(key + ": expected true or false, got '" + v + "'");
    };
  }

  private static Duration seconds(Map<String, String> env, String key, long dflt) {
    String v = env.get(key);
    if (v == null || v.isBlank()) {
      return Duration.ofSeconds(dflt);
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return Duration.ofSeconds(n);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + ": expected a whole number of seconds >= 0, got '" + v + "'");
    }
  }

  public ValidatorConfig withComponent(Component c) {
    return new ValidatorConfig(
        c,
        withWait,
        nodeName,
        validationsDir,
        driverRoot,
        backend,
        nodeProfile,
        runtime,
        runtimeConfig,
        runtimeDropInConfig,
        runtimeName,
        cdiEnabled,
        cdiDir,
        namespace,
        cudaImage,
        timeout,
        poll);
  }

  public ValidatorConfig withWait(boolean wait) {
    return new ValidatorConfig(
        component,
        wait,
        nodeName,
        validationsDir,
        driverRoot,
        backend,
        nodeProfile,
        runtime,
        runtimeConfig,
        runtimeDropInConfig,
        runtimeName,
        cdiEnabled,
        cdiDir,
        namespace,
        cudaImage,
        timeout,
        poll);
  }

  public ValidatorConfig withTimeouts(Duration timeout, Duration poll) {
    return new ValidatorConfig(
        component,
        withWait,
        nodeName,
        validationsDir,
        driverRoot,
        backend,
        nodeProfile,
        runtime,
        runtimeConfig,
        runtimeDropInConfig,
        runtimeName,
        cdiEnabled,
        cdiDir,
        namespace,
        cudaImage,
        timeout,
        poll);
  }
}

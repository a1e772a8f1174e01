package io.gpuoperator.node.validator;

import static io.gpuoperator.node.validator.ValidatorEnv.*;

import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.NodeAgentOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of one validator run: flags over the environment variables (the original's names, in
 * {@link ValidatorEnv}), declared once below; the command's options come from them.
 *
 * @param component the step to run; null when neither flag nor env names one
 * @param withWait wait for the previous step's marker first
 * @param driverRoot where the driver is installed; {@code /} means a host-installed driver
 * @param disableDevCharSymlinks skip the host's {@code /dev/char} links ({@link DevCharSymlinks})
 * @param backend {@code nvml} or {@code simulated}
 * @param nodeProfile node profile of the simulated backend (built-in name or file); null: {@code
 *     <driverRoot>/node-profile.yaml}
 * @param runtime containerd, crio or docker
 * @param timeout for waits and polls; zero waits for markers forever
 * @param systemRoot where {@code proc}, {@code sys} and {@code run/mellanox} are read, and the
 *     host's {@code /} is mounted at {@code host} ({@code /} in a pod; tests: a fake tree)
 * @param gdsEnabled GPUDirect Storage on, so the nvidia-fs step checks {@code nvidia_fs}
 * @param gdrcopyEnabled GDRCopy on, so the gdrcopy step checks {@code gdrdrv}
 * @param rdmaEnabled GPUDirect RDMA on: nvidia-peermem and mofed are checked
 * @param hostMofed MOFED installed on the host ({@code mlx5_core} loaded) rather than by a driver
 *     container ({@code /run/mellanox/drivers/.driver-ready})
 * @param defaultWorkload the sandbox steps' workload where the node has no label
 */
public record ValidatorConfig(
    Component component,
    boolean withWait,
    String nodeName,
    Path validationsDir,
    Path driverRoot,
    boolean disableDevCharSymlinks,
    String backend,
    String nodeProfile,
    String runtime,
    Path runtimeConfig,
    Path runtimeDropInConfig,
    String runtimeName,
    boolean cdiEnabled,
    Path cdiDir,
    String namespace,
    String cudaImage,
    Duration timeout,
    Duration poll,
    Path systemRoot,
    boolean gdsEnabled,
    boolean gdrcopyEnabled,
    boolean rdmaEnabled,
    boolean hostMofed,
    WorkloadConfig defaultWorkload) {

  public static final Setting<Component> COMPONENT =
      Setting.of("--component", Component::parse)
          .env(ValidatorEnv.COMPONENT)
          .label("NAME")
          .help(
              "The step to validate (required): driver, toolkit, cuda, plugin, nvidia-fs,"
                  + " gdrcopy, nvidia-peermem, mofed, cc-manager, vfio-pci, vgpu-manager or"
                  + " vgpu-devices.");
  public static final Setting<Boolean> WITH_WAIT =
      Setting.bool("--wait")
          .env(ValidatorEnv.WITH_WAIT)
          .help("Wait for the previous step's marker first.")
          .orElse(false);
  public static final Setting<Path> VALIDATIONS_DIR =
      Setting.of("--validations-dir", Parse::path)
          .env(ValidatorEnv.VALIDATIONS_DIR)
          .label("DIR")
          .help("Where the marker files are.")
          .orElse(Path.of(DEFAULT_VALIDATIONS_DIR), DEFAULT_VALIDATIONS_DIR);
  public static final Setting<Path> DRIVER_ROOT =
      Setting.of("--driver-root", Parse::path)
          .env(ValidatorEnv.NVIDIA_DRIVER_ROOT, ValidatorEnv.DRIVER_INSTALL_DIR_CTR_PATH)
          .label("DIR")
          .help("Where the driver is installed; / for a driver on the host.")
          .orElse(Path.of(DEFAULT_DRIVER_ROOT), DEFAULT_DRIVER_ROOT);
  public static final Setting<Boolean> DISABLE_DEV_CHAR_SYMLINKS =
      Setting.bool("--disable-dev-char-symlink-creation")
          .env(ValidatorEnv.DISABLE_DEV_CHAR_SYMLINK_CREATION)
          .help("Do not link the NVIDIA device nodes under the host's /dev/char.")
          .orElse(false);
  public static final Setting<String> RUNTIME =
      Setting.of("--runtime", Parse.oneOf("runtime", List.of("containerd", "crio", "docker")))
          .env(ValidatorEnv.RUNTIME)
          .label("containerd|crio|docker")
          .help("The container runtime the toolkit configured.")
          .orElse("containerd");
  public static final Setting<Path> RUNTIME_CONFIG =
      Setting.of("--runtime-config", Parse::path)
          .env(ValidatorEnv.RUNTIME_CONFIG)
          .label("FILE")
          .help("The runtime's config file.")
          .orElse(Path.of(DEFAULT_RUNTIME_CONFIG), DEFAULT_RUNTIME_CONFIG);
  public static final Setting<Path> RUNTIME_DROP_IN_CONFIG =
      Setting.of(null, Parse::path).env(ValidatorEnv.RUNTIME_DROP_IN_CONFIG);
  public static final Setting<String> RUNTIME_NAME =
      Setting.string(null).env(ValidatorEnv.NVIDIA_RUNTIME_NAME).orElse("nvidia");
  // Off unless asked for: NVIDIA's validator checks no CDI spec, and NVIDIA's operator sets no
  // CDI_ENABLED on it when CDI is off (its chart's default), so a toolkit that wrote no spec must
  // pass; this project's operator sets the variable on its agent either way.
  public static final Setting<Boolean> CDI_ENABLED =
      Setting.bool(null).env(ValidatorEnv.CDI_ENABLED).orElse(false);
  public static final Setting<Path> CDI_DIR =
      Setting.of("--cdi-dir", Parse::path)
          .env(ValidatorEnv.CDI_SPEC_DIR)
          .label("DIR")
          .help("The CDI spec directory.")
          .orElse(Path.of(DEFAULT_CDI_DIR), DEFAULT_CDI_DIR);
  public static final Setting<String> NAMESPACE =
      Setting.of("--namespace", Parse::dnsLabel)
          .env(ValidatorEnv.OPERATOR_NAMESPACE)
          .label("NS")
          .help("Namespace of the cuda workload pod.")
          .orElse(DEFAULT_NAMESPACE, DEFAULT_NAMESPACE);
  public static final Setting<String> CUDA_IMAGE =
      Setting.of(null, Parse::image)
          .env(ValidatorEnv.CUDA_WORKLOAD_IMAGE)
          .orElse(DEFAULT_CUDA_IMAGE, DEFAULT_CUDA_IMAGE);
  public static final Setting<Duration> TIMEOUT =
      Setting.of("--timeout", ValidatorConfig::seconds)
          .env(ValidatorEnv.VALIDATION_TIMEOUT)
          .label("SECONDS")
          .help(
              "Seconds to wait for resources and the workload; markers are awaited without limit.")
          .orElse(Duration.ofSeconds(300), "300");
  public static final Setting<Duration> POLL =
      Setting.of(null, ValidatorConfig::pollSeconds)
          .env(ValidatorEnv.SLEEP_INTERVAL)
          .orElse(Duration.ofSeconds(5), "5");

  public static final Setting<Path> SYSTEM_ROOT =
      Setting.of("--system-root", Parse::path)
          .env(ValidatorEnv.SYSTEM_ROOT)
          .label("DIR")
          .help(
              "Where proc, sys and run/mellanox are read, the host's / mounted at host"
                  + " (tests: a fake tree).")
          .orElse(Path.of("/"), "/");
  public static final Setting<Boolean> GDS =
      Setting.bool(null).env(ValidatorEnv.GDS_ENABLED).orElse(false);
  public static final Setting<Boolean> GDRCOPY =
      Setting.bool(null).env(ValidatorEnv.GDRCOPY_ENABLED).orElse(false);
  public static final Setting<Boolean> RDMA =
      Setting.bool(null).env(ValidatorEnv.GPU_DIRECT_RDMA_ENABLED).orElse(false);
  public static final Setting<Boolean> HOST_MOFED =
      Setting.bool(null).env(ValidatorEnv.USE_HOST_MOFED).orElse(false);
  public static final Setting<WorkloadConfig> DEFAULT_WORKLOAD =
      Setting.of(null, WorkloadConfig::parse)
          .env(ValidatorEnv.DEFAULT_GPU_WORKLOAD_CONFIG)
          .orElse(WorkloadConfig.VM_PASSTHROUGH, WorkloadConfig.VM_PASSTHROUGH.label());

  /** Every setting of the validator itself (the node-agent ones are shared), in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          COMPONENT,
          WITH_WAIT,
          VALIDATIONS_DIR,
          DRIVER_ROOT,
          DISABLE_DEV_CHAR_SYMLINKS,
          RUNTIME,
          RUNTIME_CONFIG,
          CDI_DIR,
          NAMESPACE,
          TIMEOUT,
          RUNTIME_DROP_IN_CONFIG,
          RUNTIME_NAME,
          CDI_ENABLED,
          CUDA_IMAGE,
          POLL,
          SYSTEM_ROOT,
          GDS,
          GDRCOPY,
          RDMA,
          HOST_MOFED,
          DEFAULT_WORKLOAD);

  /** Resolves every setting: flag, then environment, then the original's default. */
  public static ValidatorConfig resolve(Settings s) {
    return new ValidatorConfig(
        s.get(COMPONENT),
        s.get(WITH_WAIT),
        s.get(NodeAgentOptions.NODE_NAME),
        s.get(VALIDATIONS_DIR),
        s.get(DRIVER_ROOT),
        s.get(DISABLE_DEV_CHAR_SYMLINKS),
        s.get(NodeAgentOptions.BACKEND),
        s.get(NodeAgentOptions.NODE_PROFILE),
        s.get(RUNTIME),
        s.get(RUNTIME_CONFIG),
        dropIn(s),
        s.get(RUNTIME_NAME),
        s.get(CDI_ENABLED),
        s.get(CDI_DIR),
        s.get(NAMESPACE),
        s.get(CUDA_IMAGE),
        s.get(TIMEOUT),
        s.get(POLL),
        s.get(SYSTEM_ROOT),
        s.get(GDS),
        s.get(GDRCOPY),
        s.get(RDMA),
        s.get(HOST_MOFED),
        s.get(DEFAULT_WORKLOAD));
  }

  /** The toolkit's drop-in file: by default its containerd drop-in, none for other runtimes. */
  private static Path dropIn(Settings s) {
    Path set = s.get(RUNTIME_DROP_IN_CONFIG);
    if (set != null) {
      return set;
    }
    return s.get(RUNTIME).equals("containerd")
        ? Path.of(ValidatorEnv.DEFAULT_RUNTIME_DROP_IN_CONFIG)
        : null;
  }

  /** Reads every setting from the environment map, with the original's defaults. */
  public static ValidatorConfig fromEnv(Map<String, String> env) {
    return resolve(Settings.ofEnv(env));
  }

  /** Whether the driver is installed on the host rather than by the driver container. */
  public boolean hostDriver() {
    return driverRoot.toString().equals("/");
  }

  /** A whole number of seconds, 0 (no limit) to a day. */
  private static Duration seconds(String v) {
    return Duration.ofSeconds(Parse.integer(0, 86_400).apply(v));
  }

  /** A poll interval in whole seconds, up to 10 minutes. */
  private static Duration pollSeconds(String v) {
    return Duration.ofSeconds(Parse.integer(0, 600).apply(v));
  }

  public ValidatorConfig withComponent(Component c) {
    return copy(c, withWait, driverRoot, timeout, poll);
  }

  /** The same configuration with the driver at {@code root} ({@code /}: on the host). */
  public ValidatorConfig withDriverRoot(Path root) {
    return copy(component, withWait, root, timeout, poll);
  }

  public ValidatorConfig withWait(boolean wait) {
    return copy(component, wait, driverRoot, timeout, poll);
  }

  public ValidatorConfig withTimeouts(Duration timeout, Duration poll) {
    return copy(component, withWait, driverRoot, timeout, poll);
  }

  /** A copy that differs only in what a step or a test changes; the rest is the node's. */
  private ValidatorConfig copy(
      Component component, boolean withWait, Path driverRoot, Duration timeout, Duration poll) {
    return new ValidatorConfig(
        component,
        withWait,
        nodeName,
        validationsDir,
        driverRoot,
        disableDevCharSymlinks,
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
        poll,
        systemRoot,
        gdsEnabled,
        gdrcopyEnabled,
        rdmaEnabled,
        hostMofed,
        defaultWorkload);
  }
}

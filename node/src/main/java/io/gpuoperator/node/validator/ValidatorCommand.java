package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator validator}: one step of the node's validation chain. */
@Command(
    name = "validator",
    mixinStandardHelpOptions = true,
    description = {
      "Validates one layer of the node's GPU stack and writes its marker file in the validations"
          + " directory, in this order: driver (driver-ready), toolkit (toolkit-ready), cuda"
          + " (cuda-ready), plugin (plugin-ready). Flags override the environment variables named"
          + " in brackets.",
      "Exit codes: 0 valid, 1 validation failed, 2 bad usage."
    })
public class ValidatorCommand implements Callable<Integer> {
  @Option(names = "--component", description = "driver|toolkit|cuda|plugin [COMPONENT]")
  String component;

  @Option(names = "--wait", description = "Wait for the previous step's marker first [WITH_WAIT]")
  Boolean waitForPrevious;

  @Option(names = "--node-name", description = "This node's name [NODE_NAME]")
  String nodeName;

  @Option(
      names = "--validations-dir",
      description = "Marker directory [VALIDATIONS_DIR, default /run/nvidia/validations]")
  Path validationsDir;

  @Option(
      names = "--driver-root",
      description =
          "Driver install root; / for a host driver [NVIDIA_DRIVER_ROOT, default /run/nvidia/driver]")
  Path driverRoot;

  @Option(names = "--backend", description = "nvml|simulated [GPU_BACKEND, default nvml]")
  String backend;

  @Option(
      names = "--node-profile",
      description =
          "Node profile of the simulated backend [GPU_NODE_PROFILE, default <driver-root>/node-profile.yaml]")
  Path nodeProfile;

  @Option(names = "--runtime", description = "containerd|crio|docker [RUNTIME, default containerd]")
  String runtime;

  @Option(
      names = "--runtime-config",
      description = "Runtime config file [RUNTIME_CONFIG, default /etc/containerd/config.toml]")
  Path runtimeConfig;

  @Option(
      names = "--cdi-dir",
      description = "CDI spec directory [CDI_SPEC_DIR, default /var/run/cdi]")
  Path cdiDir;

  @Option(
      names = "--namespace",
      description = "Namespace of the cuda workload pod [OPERATOR_NAMESPACE]")
  String namespace;

  @Option(
      names = "--timeout",
      description =
          "Seconds to wait for resources and the workload; markers are awaited without limit [VALIDATION_TIMEOUT, default 300]")
  Long timeoutSeconds;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final Map<String, String> env;
  private final Supplier<KubernetesClient> client;
  private final Function<ValidatorConfig, GpuBackendOpener> opener;

  /** The command as the CLI runs it: process environment, in-cluster/kubeconfig client. */
  public ValidatorCommand() {
    this(System.getenv(), null, DefaultBackendOpener::new);
  }

  /**
   * The command with its environment, client and backend given (tests and the simulator's
   * in-process agents); a null client means one from the kubeconfig, created on first use.
   */
  public ValidatorCommand(
      Map<String, String> env,
      Supplier<KubernetesClient> client,
      Function<ValidatorConfig, GpuBackendOpener> opener) {
    this.env = env;
    this.client = client;
    this.opener = opener;
  }

  @Override
  public Integer call() throws Exception {
    ValidatorConfig config;
    try {
      config = config();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (config.component() == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "missing --component (driver|toolkit|cuda|plugin) or COMPONENT");
    }
    KubernetesClient[] created = new KubernetesClient[1];
    Supplier<KubernetesClient> clients =
        client != null
            ? client
            : () ->
                created[0] == null
                    ? (created[0] = new KubernetesClientBuilder().build())
                    : created[0];
    try {
      new Validator(config, opener.apply(config), clients).run();
      spec.commandLine()
          .getOut()
          .println(
              config.component().cliName()
                  + " validation passed: "
                  + config.validationsDir().resolve(config.component().marker()));
      return 0;
    } catch (ValidationException e) {
      spec.commandLine()
          .getErr()
          .println(config.component().cliName() + " validation failed: " + e.getMessage());
      return 1;
    } finally {
      if (created[0] != null) {
        created[0].close();
      }
    }
  }

  ValidatorConfig config() {
    ValidatorConfig base = ValidatorConfig.fromEnv(env);
    Component c = component != null ? Component.parse(component) : base.component();
    boolean wait = waitForPrevious != null ? waitForPrevious : base.withWait();
    Duration timeout = timeoutSeconds != null ? Duration.ofSeconds(timeoutSeconds) : base.timeout();
    if (timeoutSeconds != null && timeoutSeconds < 0) {
      throw new IllegalArgumentException("--timeout: expected seconds >= 0, got " + timeoutSeconds);
    }
    return new ValidatorConfig(
        c,
        wait,
        nodeName != null ? nodeName : base.nodeName(),
        validationsDir != null ? validationsDir : base.validationsDir(),
        driverRoot != null ? driverRoot : base.driverRoot(),
        backend != null ? ValidatorConfig.backend(backend, "--backend") : base.backend(),
        nodeProfile != null ? nodeProfile : base.nodeProfile(),
        runtime != null ? ValidatorConfig.runtime(runtime) : base.runtime(),
        runtimeConfig != null ? runtimeConfig : base.runtimeConfig(),
        base.runtimeDropInConfig(),
        base.runtimeName(),
        base.cdiEnabled(),
        cdiDir != null ? cdiDir : base.cdiDir(),
        namespace != null ? namespace : base.namespace(),
        base.cudaImage(),
        timeout,
        base.poll());
  }
}

package io.gpuoperator.node.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.NodeAgentOptions;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gpu-operator validator}: one step of the node's validation chain. */
@Command(
    name = "validator",
    modelTransformer = ValidatorCommand.Options.class,
    header = "Validates one layer of this node's GPU stack and writes its marker file.",
    description = {
      "The layers in order: driver (driver-ready), toolkit (toolkit-ready), cuda (cuda-ready),"
          + " plugin (plugin-ready); GPUDirect: nvidia-fs, gdrcopy, nvidia-peermem, mofed;"
          + " sandbox: cc-manager, vfio-pci, vgpu-manager, vgpu-devices. A step whose feature is"
          + " off on this node is skipped (exit 0, no marker). Flags override the environment"
          + " variables named below."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:valid, the marker was written; or skipped, its feature off",
      "1:validation failed (the reason on stderr)",
      "2:bad input: a flag or variable (the message names it)"
    })
public class ValidatorCommand extends AgentCommand {
  /** The options: the validator's settings, then the ones every node agent shares. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(group("Validation:", ValidatorConfig.ALL), NodeAgentOptions.GROUP);
    }
  }

  private final Supplier<KubernetesClient> client;
  private final Function<ValidatorConfig, GpuBackendOpener> opener;
  private final ScheduledExecutorService scheduler;
  private final NodeWatch nodes;
  private CompletableFuture<Integer> begun;
  private KubernetesClient created; // guarded by this

  /** The command as the CLI runs it: process environment, in-cluster/kubeconfig client. */
  public ValidatorCommand() {
    this(System.getenv(), null, null);
  }

  /**
   * The command with its environment, client and backend given (tests); a null client means one
   * from the kubeconfig, created on first use, and a null opener the backend the settings choose.
   */
  public ValidatorCommand(
      Map<String, String> env,
      Supplier<KubernetesClient> client,
      Function<ValidatorConfig, GpuBackendOpener> opener) {
    this(env, client, opener, null, null);
  }

  /**
   * The same, run without blocking on {@code scheduler} (the simulator's in-process validators,
   * hundreds in one JVM): {@link #call} only starts the validation, and {@link #begun} is its exit
   * code to come. The node is heard of through {@code nodes} (the simulator's one watch of every
   * Node), or when null through the client.
   */
  public ValidatorCommand(
      Map<String, String> env,
      Supplier<KubernetesClient> client,
      Function<ValidatorConfig, GpuBackendOpener> opener,
      ScheduledExecutorService scheduler,
      NodeWatch nodes) {
    withEnv(env);
    this.client = client;
    this.opener = opener;
    this.scheduler = scheduler;
    this.nodes = nodes;
  }

  /**
   * Runs the validation: blocking, its exit code; with a scheduler given, started on it (returns 0,
   * the exit code is {@link #begun}'s).
   */
  @Override
  public Integer call() throws Exception {
    if (scheduler != null) {
      begun = begin(scheduler);
      begun.whenComplete((code, e) -> closeClient());
      return 0;
    }
    try {
      return Waits.blocking(this::begin);
    } finally {
      closeClient(); // after the run's cleanup, which may use it (the cuda pod's delete)
    }
  }

  /**
   * With a scheduler given: the exit code of the validation {@link #call} started, or null when it
   * started none (bad input, {@code --help}: the exit code {@code execute} returned is the one).
   */
  public CompletableFuture<Integer> begun() {
    return begun;
  }

  /**
   * Starts the validation the parsed options describe; the future completes with its exit code,
   * having printed what it found: 0 valid or skipped, 1 failed. Bad input throws the {@link
   * CommandLine.ParameterException} picocli turns into exit code 2.
   */
  private CompletableFuture<Integer> begin(ScheduledExecutorService on) {
    Settings settings = SettingOptions.settings(spec, env, null);
    ValidatorConfig config =
        HostDriver.resolve(
            ValidatorConfig.resolve(settings),
            settings.isGiven(ValidatorConfig.DRIVER_ROOT),
            HostDriver.HOST_ROOT_MOUNT);
    if (config.component() == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "missing --component NAME (driver, toolkit, cuda, plugin ...) or COMPONENT");
    }
    Supplier<KubernetesClient> clients = client != null ? client : () -> created(settings);
    GpuBackendOpener backends =
        opener != null ? opener.apply(config) : new DefaultBackendOpener(config, settings);
    Validator validator =
        nodes != null
            ? new Validator(config, backends, clients, () -> nodes)
            : new Validator(config, backends, clients);
    CompletableFuture<Verdict> started = validator.start(on);
    CompletableFuture<Integer> code =
        started.handle(
            (verdict, failure) -> {
              if (failure == null) {
                spec.commandLine()
                    .getOut()
                    .println(
                        config.component().cliName()
                            + (verdict.isSkipped()
                                ? " validation skipped: " + verdict.skipped()
                                : " validation passed: "
                                    + config.validationsDir().resolve(verdict.marker())));
                return 0;
              }
              if (failure instanceof ValidationException e) {
                spec.commandLine()
                    .getErr()
                    .println(
                        spec.qualifiedName()
                            + ": "
                            + config.component().cliName()
                            + " validation failed: "
                            + e.getMessage());
                return 1;
              }
              throw failure instanceof CompletionException c ? c : new CompletionException(failure);
            });
    code.whenComplete((c, e) -> started.cancel(true)); // the exit code cancelled: the run too
    return code;
  }

  /** The client from the kubeconfig, created on first use. */
  private synchronized KubernetesClient created(Settings settings) {
    if (created == null) {
      created = NodeAgentOptions.client(settings, "validator");
    }
    return created;
  }

  private synchronized void closeClient() {
    if (created != null) {
      created.close();
      created = null;
    }
  }
}
